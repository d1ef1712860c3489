package envelope

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"

	"ragd/internal/testkit/testenv"
)

// FuzzEnvelope splits and checks arbitrary bodies: no panic, bounded time,
// a problem carries a JSON-RPC code, and an accepted envelope re-marshals
// into a valid message that checks the same. Seeds are the MCP SDK's
// conformance traffic and JSON files of the Go distribution.
func FuzzEnvelope(f *testing.F) {
	for _, b := range testenv.JSONRPCSeeds(f) {
		f.Add(b)
	}
	for _, b := range testenv.SeedFiles(f, 16<<10, 4, filepath.Join(runtime.GOROOT(), "src/crypto/internal/fips140test/*.json")) {
		f.Add(b)
	}
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
		`[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"a","method":"tools/list"}]`,
		`{"jsonrpc":"2.0","id":7,"result":{}}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":-1.5e3,"method":"tools/call","params":null}`, `[]`, `{"JSONRPC":"2.0","Method":"m"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		testenv.Within(t, testenv.DefaultBound, func() { checkBody(t, body) })
	})
}

const fuzzMaxBatch = 5

func checkBody(t *testing.T, body []byte) {
	msgs, batch, p := Split(body, fuzzMaxBatch)
	if p != nil {
		if p.Code != ParseError && p.Code != InvalidRequest || p.Reason == "" {
			t.Fatalf("split problem %+v", p)
		}
		return
	}
	if len(msgs) == 0 || len(msgs) > fuzzMaxBatch || (!batch && len(msgs) != 1) {
		t.Fatalf("split into %d messages (batch %v)", len(msgs), batch)
	}
	for _, m := range msgs {
		if !json.Valid(m) {
			t.Fatalf("split gave invalid JSON %q", m)
		}
		e, p := Check(m)
		if p != nil {
			if p.Code != InvalidRequest || p.Reason == "" {
				t.Fatalf("check problem %+v", p)
			}
			continue
		}
		checkAccepted(t, e)
	}
}

// checkAccepted re-marshals an accepted envelope as the endpoint would
// forward it and checks the result again.
func checkAccepted(t *testing.T, e Envelope) {
	msg := map[string]any{"jsonrpc": "2.0"}
	if e.ID != nil {
		msg["id"] = e.ID
	}
	if e.Response {
		msg["result"] = json.RawMessage("{}")
	} else {
		msg["method"] = e.Method
	}
	if e.Params != nil {
		msg["params"] = e.Params
	}
	raw, err := json.Marshal(msg)
	if err != nil || !json.Valid(raw) {
		t.Fatalf("accepted envelope %+v does not re-marshal: %v", e, err)
	}
	again, p := Check(raw)
	if p != nil {
		t.Fatalf("re-marshalled envelope %s refused: %+v", raw, p)
	}
	// json.Marshal compacts raw values and escapes <, > and & in their
	// strings: compare them as the values they are
	if !sameJSON(t, again.ID, e.ID) || !sameJSON(t, again.Params, e.Params) ||
		again.Method != e.Method || again.Response != e.Response {
		t.Fatalf("re-marshalled envelope %+v checks as %+v", e, again)
	}
}

// sameJSON reports whether two raw values (nil for absent) decode to
// the same value, numbers compared as written.
func sameJSON(t *testing.T, a, b json.RawMessage) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return reflect.DeepEqual(decodeValue(t, a), decodeValue(t, b))
}

func decodeValue(t *testing.T, raw json.RawMessage) any {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("raw value %q: %v", raw, err)
	}
	return v
}
