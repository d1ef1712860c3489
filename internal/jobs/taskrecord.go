package jobs

import (
	"errors"
	"fmt"
	"time"

	"github.com/hibiken/asynq"
	"google.golang.org/protobuf/encoding/protowire"
)

// Asynq's inspector reads one task per call (two round trips each), so a
// directory job's children are read from Asynq's task records directly.
// This file is the only place that knows their layout (asynq v0.26,
// internal/base and internal/proto); TestChildrenMatchInspector checks it
// against the inspector.

// taskFields are the fields of a task's hash that TaskInfo comes from.
var taskFields = []string{"msg", "state", "result"}

// taskStates maps the state names Asynq stores to its public states; they
// are the names TaskState.String returns.
var taskStates = func() map[string]asynq.TaskState {
	m := map[string]asynq.TaskState{}
	for s := asynq.TaskStateActive; s <= asynq.TaskStateAggregating; s++ {
		m[s.String()] = s
	}
	return m
}()

// taskInfoOf turns the values of taskFields into the TaskInfo the inspector
// would return. A task that does not exist (any more) is
// asynq.ErrTaskNotFound, as from the inspector.
func taskInfoOf(vals []any) (*asynq.TaskInfo, error) {
	if len(vals) != len(taskFields) {
		return nil, fmt.Errorf("task record: %d fields, want %d", len(vals), len(taskFields))
	}
	if vals[0] == nil && vals[1] == nil {
		return nil, asynq.ErrTaskNotFound
	}
	encoded, ok := vals[0].(string)
	name, ok2 := vals[1].(string)
	if !ok || !ok2 {
		return nil, errors.New("task record without message or state")
	}
	state, ok := taskStates[name]
	if !ok {
		return nil, fmt.Errorf("task record: unknown state %q", name)
	}
	info, err := decodeTaskMessage([]byte(encoded))
	if err != nil {
		return nil, fmt.Errorf("task record: %w", err)
	}
	info.State = state
	if result, _ := vals[2].(string); result != "" {
		info.Result = []byte(result)
	}
	return info, nil
}

// Field numbers of Asynq's TaskMessage protobuf. Protobuf field numbers
// cannot change without breaking the tasks Asynq itself has stored.
const (
	msgType         = 1
	msgPayload      = 2
	msgID           = 3
	msgQueue        = 4
	msgRetried      = 6
	msgErrorMsg     = 7
	msgLastFailedAt = 11
	msgCompletedAt  = 13
)

// decodeTaskMessage reads the TaskMessage fields that fromTaskInfo uses and
// skips the others.
func decodeTaskMessage(b []byte) (*asynq.TaskInfo, error) {
	info := &asynq.TaskInfo{}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		b = b[n:]
		var v uint64
		var s []byte
		switch typ {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			s, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		b = b[n:]
		switch num {
		case msgType:
			info.Type = string(s)
		case msgPayload:
			info.Payload = s
		case msgID:
			info.ID = string(s)
		case msgQueue:
			info.Queue = string(s)
		case msgRetried:
			info.Retried = int(int32(v)) // proto int32: sign-extended varint
		case msgErrorMsg:
			info.LastErr = string(s)
		case msgLastFailedAt:
			info.LastFailedAt = unixOrZero(int64(v))
		case msgCompletedAt:
			info.CompletedAt = unixOrZero(int64(v))
		}
	}
	return info, nil
}

// unixOrZero is Asynq's reading of its timestamps: zero means never.
func unixOrZero(sec int64) time.Time {
	if sec == 0 {
		return time.Time{}
	}
	return time.Unix(sec, 0)
}
