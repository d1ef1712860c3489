package jobs

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"google.golang.org/protobuf/encoding/protowire"
)

// The fields a job's status needs are decoded and the others skipped,
// whatever their wire type.
func TestTaskInfoOfDecodesRecord(t *testing.T) {
	var msg []byte
	msg = protowire.AppendTag(msg, msgType, protowire.BytesType)
	msg = protowire.AppendString(msg, TypeIngestDocument)
	msg = protowire.AppendTag(msg, msgPayload, protowire.BytesType)
	msg = protowire.AppendBytes(msg, []byte(`{"kb_name":"docs"}`))
	msg = protowire.AppendTag(msg, 15, protowire.BytesType) // a headers entry
	msg = protowire.AppendBytes(msg, []byte{0x0a, 0x01, 'k', 0x12, 0x01, 'v'})
	msg = protowire.AppendTag(msg, msgID, protowire.BytesType)
	msg = protowire.AppendString(msg, "p.7")
	msg = protowire.AppendTag(msg, msgQueue, protowire.BytesType)
	msg = protowire.AppendString(msg, "ingest")
	msg = protowire.AppendTag(msg, 5, protowire.VarintType) // max retries
	msg = protowire.AppendVarint(msg, 3)
	msg = protowire.AppendTag(msg, msgRetried, protowire.VarintType)
	msg = protowire.AppendVarint(msg, 2)
	msg = protowire.AppendTag(msg, msgErrorMsg, protowire.BytesType)
	msg = protowire.AppendString(msg, "embedder timed out")
	msg = protowire.AppendTag(msg, msgLastFailedAt, protowire.VarintType)
	msg = protowire.AppendVarint(msg, 1_700_000_000)
	msg = protowire.AppendTag(msg, 99, protowire.Fixed64Type) // a field from a later Asynq
	msg = protowire.AppendFixed64(msg, 1)

	got, err := taskInfoOf([]any{string(msg), "retry", `{"progress":{}}`})
	if err != nil {
		t.Fatal(err)
	}
	want := &asynq.TaskInfo{ID: "p.7", Queue: "ingest", Type: TypeIngestDocument, Payload: []byte(`{"kb_name":"docs"}`),
		State: asynq.TaskStateRetry, Retried: 2, LastErr: "embedder timed out", LastFailedAt: time.Unix(1_700_000_000, 0),
		Result: []byte(`{"progress":{}}`)}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
}

func TestTaskInfoOfRejectsBadRecords(t *testing.T) {
	if _, err := taskInfoOf([]any{nil, nil, nil}); !errors.Is(err, asynq.ErrTaskNotFound) {
		t.Errorf("missing record: %v, want ErrTaskNotFound", err)
	}
	for name, vals := range map[string][]any{
		"truncated message": {"\x0a\x05ab", "completed", nil},
		"unknown state":     {"", "vanished", nil},
		"no state":          {"", nil, nil},
		"short reply":       {"", "completed"},
	} {
		if info, err := taskInfoOf(vals); err == nil || errors.Is(err, asynq.ErrTaskNotFound) {
			t.Errorf("%s: %+v, %v; want an error other than not found", name, info, err)
		}
	}
}
