package envelope

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		body  string
		n     int
		batch bool
		code  int
		why   string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"m"}`, 1, false, 0, ""},
		{` [{"a":1},{"b":2}] `, 2, true, 0, ""},
		{`[]`, 0, true, InvalidRequest, "empty batch"},
		{`[1,2,3,4]`, 0, true, InvalidRequest, "batch of 4 messages exceeds the limit of 3"},
		{`{"jsonrpc":`, 0, false, ParseError, "not valid JSON"},
		{``, 0, false, ParseError, "not valid JSON"},
	} {
		msgs, batch, p := Split([]byte(tc.body), 3)
		switch {
		case tc.code == 0 && (p != nil || len(msgs) != tc.n || batch != tc.batch):
			t.Errorf("%s: %d msgs, batch %v, %+v", tc.body, len(msgs), batch, p)
		case tc.code != 0 && (p == nil || p.Code != tc.code || !strings.Contains(p.Reason, tc.why)):
			t.Errorf("%s: %+v, want %d %q", tc.body, p, tc.code, tc.why)
		}
	}
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		msg, why string
		id       string
		want     Envelope
	}{
		{`{"jsonrpc":"2.0","id":7,"method":"search","params":{"q":1}}`, "", "7",
			Envelope{Method: "search", Params: json.RawMessage(`{"q":1}`)}},
		{`{"jsonrpc":"2.0","method":"note","params":null}`, "", "", Envelope{Method: "note"}},
		{`{"jsonrpc":"2.0","id":"a","result":{}}`, "", `"a"`, Envelope{Response: true}},
		{`{"jsonrpc":"2.0","id":1}`, `"method" is missing`, "1", Envelope{}},
		{`{"jsonrpc":"2.0","id":1,"method":""}`, "non-empty string", "1", Envelope{}},
		{`{"jsonrpc":"2.0","id":1,"method":5}`, "non-empty string", "1", Envelope{}},
		{`{"JSONRPC":"2.0","id":1,"method":"m"}`, `"jsonrpc" must be "2.0"`, "1", Envelope{}},
		{`{"jsonrpc":"1.0","id":1,"method":"m"}`, `"jsonrpc" must be "2.0"`, "1", Envelope{}},
		{`{"jsonrpc":"2.0","id":{},"method":"m"}`, `"id" must be`, "", Envelope{}},
		{`[1]`, "JSON object", "", Envelope{}},
	} {
		e, p := Check(json.RawMessage(tc.msg))
		if string(e.ID) != tc.id {
			t.Errorf("%s: id %s, want %s", tc.msg, e.ID, tc.id)
		}
		if tc.why != "" {
			if p == nil || p.Code != InvalidRequest || !strings.Contains(p.Reason, tc.why) {
				t.Errorf("%s: %+v, want %q", tc.msg, p, tc.why)
			}
			continue
		}
		if p != nil || e.Method != tc.want.Method || string(e.Params) != string(tc.want.Params) || e.Response != tc.want.Response {
			t.Errorf("%s: %+v %+v", tc.msg, e, p)
		}
	}
	if e, _ := Check(json.RawMessage(`{"jsonrpc":"2.0","method":"n"}`)); !e.Notification() {
		t.Error("a request without id is a notification")
	}
}
