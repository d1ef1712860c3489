package websearchapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"ragd/internal/adapter/websearch"
	"ragd/internal/platform/resilience"
)

func TestInitialize(t *testing.T) {
	srv := newTestServer(t, New(nil, Info{Name: "ragd", Version: "1.2.3"}, nil))
	r := call(t, srv, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"agent"}}}`)
	want := `{"protocolVersion":"2.0","serverInfo":{"name":"ragd","version":"1.2.3"},"capabilities":{"tools":{}}}`
	if string(r.Result) != want || string(r.ID) != "1" {
		t.Fatalf("got %s id %s\nwant %s", r.Result, r.ID, want)
	}
}

func TestListTools(t *testing.T) {
	srv := newTestServer(t, New(nil, Info{}, nil))
	r := call(t, srv, `{"jsonrpc":"2.0","id":"t","method":"list_tools"}`)
	var got, want any
	_ = json.Unmarshal(r.Result, &got)
	_ = json.Unmarshal([]byte(`{"tools":[{"name":"search_topic",
		"description":"Search the web for a topic and return the top results (title, link, snippet).",
		"input_schema":{"type":"object","properties":{
			"topic":{"type":"string","description":"What to search the web for."},
			"max_results":{"type":"integer","description":"How many results to return.","default":5,"minimum":1,"maximum":20}},
		"required":["topic"]}}]}`), &want)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %s", r.Result)
	}
}

func TestSearch(t *testing.T) {
	fake := &fakeProvider{results: threeResults}
	srv := newTestServer(t, New(fake, Info{}, nil))

	r := call(t, srv, `{"jsonrpc":"2.0","id":7,"method":"search","params":{"query":"golang"}}`)
	var res searchResult
	if err := json.Unmarshal(r.Result, &res); err != nil || res.Count != 3 || !reflect.DeepEqual(res.Results, threeResults) {
		t.Fatalf("got %s (%v)", r.Result, err)
	}
	if !strings.Contains(string(r.Result), `"link":"https://go.dev/"`) {
		t.Fatalf("fields not named title/link/snippet: %s", r.Result)
	}

	r = call(t, srv, `{"jsonrpc":"2.0","id":8,"method":"search","params":{"topic":"go spec","max_results":2}}`)
	_ = json.Unmarshal(r.Result, &res)
	if res.Count != 2 || len(res.Results) != 2 {
		t.Fatalf("got %s", r.Result)
	}
	r = call(t, srv, `{"jsonrpc":"2.0","id":9,"method":"search","params":{"query":"q","max_results":4.0}}`)
	if r.Error != nil {
		t.Fatalf("4.0 is an integer: %+v", r.Error)
	}
	want := []fakeCall{{"golang", 5}, {"go spec", 2}, {"q", 4}}
	if got := fake.callLog(); !reflect.DeepEqual(got, want) {
		t.Fatalf("provider saw %+v, want %+v", got, want)
	}
}

func TestSearchNoResultsIsEmptyArray(t *testing.T) {
	srv := newTestServer(t, New(&fakeProvider{}, Info{}, nil))
	r := call(t, srv, `{"jsonrpc":"2.0","id":1,"method":"search","params":{"query":"zzqx"}}`)
	if string(r.Result) != `{"results":[],"count":0}` {
		t.Fatalf("got %s", r.Result)
	}
}

func TestShutdownOnlyAcknowledges(t *testing.T) {
	srv := newTestServer(t, New(&fakeProvider{results: threeResults}, Info{}, nil))
	r := call(t, srv, `{"jsonrpc":"2.0","id":1,"method":"shutdown"}`)
	if string(r.Result) != `{"acknowledged":true}` {
		t.Fatalf("got %s", r.Result)
	}
	if r := call(t, srv, `{"jsonrpc":"2.0","id":2,"method":"search","params":{"query":"still here"}}`); r.Error != nil {
		t.Fatalf("server stopped serving after shutdown: %+v", r.Error)
	}
}

func TestErrorCodes(t *testing.T) {
	fake := &fakeProvider{results: threeResults}
	srv := newTestServer(t, New(fake, Info{}, nil))
	cases := []struct {
		name, body string
		code       int
		id         string
		field      string
	}{
		{"malformed JSON", `{"jsonrpc":"2.0","id":1,"method":`, CodeParseError, "null", ""},
		{"empty body", ``, CodeParseError, "null", ""},
		{"trailing garbage", `{"jsonrpc":"2.0","id":1,"method":"initialize"} x`, CodeParseError, "null", ""},
		{"number", `42`, CodeInvalidRequest, "null", ""},
		{"string", `"initialize"`, CodeInvalidRequest, "null", ""},
		{"null", `null`, CodeInvalidRequest, "null", ""},
		{"empty batch", `[]`, CodeInvalidRequest, "null", ""},
		{"no jsonrpc", `{"id":1,"method":"initialize"}`, CodeInvalidRequest, "1", ""},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"method":"initialize"}`, CodeInvalidRequest, "1", ""},
		{"jsonrpc number", `{"jsonrpc":2.0,"id":1,"method":"initialize"}`, CodeInvalidRequest, "1", ""},
		{"JSONRPC key", `{"JSONRPC":"2.0","id":1,"method":"initialize"}`, CodeInvalidRequest, "1", ""},
		{"no method", `{"jsonrpc":"2.0","id":1}`, CodeInvalidRequest, "1", ""},
		{"method number", `{"jsonrpc":"2.0","id":1,"method":5}`, CodeInvalidRequest, "1", ""},
		{"id object", `{"jsonrpc":"2.0","id":{"a":1},"method":"initialize"}`, CodeInvalidRequest, "null", ""},
		{"id array", `{"jsonrpc":"2.0","id":[1],"method":"initialize"}`, CodeInvalidRequest, "null", ""},
		{"id bool", `{"jsonrpc":"2.0","id":true,"method":"initialize"}`, CodeInvalidRequest, "null", ""},
		{"invalid notification", `{"jsonrpc":"2.0","method":1}`, CodeInvalidRequest, "null", ""},
		{"unknown method", `{"jsonrpc":"2.0","id":1,"method":"search_topic"}`, CodeMethodNotFound, "1", ""},
		{"search no params", `{"jsonrpc":"2.0","id":1,"method":"search"}`, CodeInvalidParams, "1", "query"},
		{"search blank query", `{"jsonrpc":"2.0","id":1,"method":"search","params":{"query":"  "}}`, CodeInvalidParams, "1", "query"},
		{"search query number", `{"jsonrpc":"2.0","id":1,"method":"search","params":{"query":5}}`, CodeInvalidParams, "1", "query"},
		{"search topic bool", `{"jsonrpc":"2.0","id":1,"method":"search","params":{"topic":true}}`, CodeInvalidParams, "1", "topic"},
		{"params array", `{"jsonrpc":"2.0","id":1,"method":"search","params":["golang"]}`, CodeInvalidParams, "1", ""},
		{"params string", `{"jsonrpc":"2.0","id":1,"method":"search","params":"golang"}`, CodeInvalidParams, "1", ""},
		{"initialize params array", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":[]}`, CodeInvalidParams, "1", ""},
		{"max_results 0", `{"jsonrpc":"2.0","id":1,"method":"search","params":{"query":"q","max_results":0}}`, CodeInvalidParams, "1", "max_results"},
		{"max_results 21", `{"jsonrpc":"2.0","id":1,"method":"search","params":{"query":"q","max_results":21}}`, CodeInvalidParams, "1", "max_results"},
		{"max_results 2.5", `{"jsonrpc":"2.0","id":1,"method":"search","params":{"query":"q","max_results":2.5}}`, CodeInvalidParams, "1", "max_results"},
		{"max_results string", `{"jsonrpc":"2.0","id":1,"method":"search","params":{"query":"q","max_results":"5"}}`, CodeInvalidParams, "1", "max_results"},
		{"max_results huge", `{"jsonrpc":"2.0","id":1,"method":"search","params":{"query":"q","max_results":1e300}}`, CodeInvalidParams, "1", "max_results"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := call(t, srv, c.body)
			if r.Error == nil || r.Error.Code != c.code || string(r.ID) != c.id {
				t.Fatalf("got %+v id %s; want code %d id %s", r.Error, r.ID, c.code, c.id)
			}
			if r.Error.Message == "" {
				t.Fatal("empty message")
			}
			if c.field != "" {
				var data struct{ Field string }
				_ = json.Unmarshal(r.Error.Data, &data)
				if data.Field != c.field {
					t.Fatalf("data %s, want field %s", r.Error.Data, c.field)
				}
			}
		})
	}
	if n := len(fake.callLog()); n != 0 {
		t.Fatalf("provider called %d times by invalid requests", n)
	}
}

func TestInternalErrorOnPanic(t *testing.T) {
	srv := newTestServer(t, New(panickingProvider{}, Info{}, nil))
	r := call(t, srv, `{"jsonrpc":"2.0","id":3,"method":"search","params":{"query":"q"}}`)
	if r.Error == nil || r.Error.Code != CodeInternalError || string(r.ID) != "3" {
		t.Fatalf("got %+v", r.Error)
	}
}

func TestNotConfigured(t *testing.T) {
	srv := newTestServer(t, New(nil, Info{}, nil))
	r := call(t, srv, `{"jsonrpc":"2.0","id":1,"method":"search","params":{"topic":"golang"}}`)
	if r.Error == nil || r.Error.Code != CodeNotConfigured ||
		r.Error.Message != "web search is not configured (set SERPAPI_KEY or websearch.searxng_url)" {
		t.Fatalf("got %+v", r.Error)
	}
	// A provider may report it too (a wrapper whose backend went away).
	srv = newTestServer(t, New(&fakeProvider{err: websearch.ErrNotConfigured}, Info{}, nil))
	if r := call(t, srv, `{"jsonrpc":"2.0","id":1,"method":"search","params":{"topic":"golang"}}`); r.Error.Code != CodeNotConfigured {
		t.Fatalf("got %+v", r.Error)
	}
}

func TestProviderFailure(t *testing.T) {
	fail := &websearch.StatusError{Provider: "serpapi", Status: 401, Message: "Invalid API key."}
	srv := newTestServer(t, New(&fakeProvider{err: fail}, Info{}, nil))
	r := call(t, srv, `{"jsonrpc":"2.0","id":1,"method":"search","params":{"query":"q"}}`)
	// The provider's words stay in the log: a self-hosted one's may name
	// hosts of the server's network.
	if r.Error == nil || r.Error.Code != CodeProviderFailed || !strings.Contains(r.Error.Message, "serpapi answered HTTP 401") ||
		strings.Contains(r.Error.Message, "Invalid API key") {
		t.Fatalf("got %+v", r.Error)
	}
}

// An internal failure's text (here a refused connection naming a host of
// the server's network) stays in the log, as over REST and MCP.
func TestProviderFailureHidesInternalText(t *testing.T) {
	internal := fmt.Errorf("searxng: %w", &net.OpError{Op: "dial", Net: "tcp",
		Addr: &net.TCPAddr{IP: net.IPv4(10, 1, 2, 3), Port: 8888}, Err: errors.New("connect: connection refused")})
	srv := newTestServer(t, New(&fakeProvider{err: internal}, Info{}, nil))
	r := call(t, srv, `{"jsonrpc":"2.0","id":1,"method":"search","params":{"query":"q"}}`)
	if r.Error == nil || r.Error.Code != CodeProviderFailed || strings.Contains(r.Error.Message, "10.1.2.3") ||
		!strings.Contains(r.Error.Message, "the server logged the details") {
		t.Fatalf("got %+v", r.Error)
	}
}

func TestBreakerOpenSaysSo(t *testing.T) {
	down := &fakeProvider{err: &websearch.StatusError{Provider: "fake", Status: 503, Message: "down"}}
	g := resilience.New("websearch", resilience.Policy{Timeout: time.Second, FailThreshold: 1, OpenFor: time.Minute,
		InitialBackoff: time.Millisecond, MaxBackoff: time.Millisecond}, websearch.IsTransient, resilience.Hooks{})
	srv := newTestServer(t, New(websearch.Guarded(down, g), Info{}, nil))
	body := `{"jsonrpc":"2.0","id":1,"method":"search","params":{"query":"q"}}`
	if r := call(t, srv, body); r.Error == nil || r.Error.Code != CodeProviderFailed || !strings.Contains(r.Error.Message, "websearch is unavailable") ||
		strings.Contains(r.Error.Message, "down") {
		t.Fatalf("first call: %+v", r.Error)
	}
	r := call(t, srv, body)
	var data struct {
		BreakerOpen bool `json:"breaker_open"`
		Retry       int  `json:"retry_after_seconds"`
	}
	_ = json.Unmarshal(r.Error.Data, &data)
	if r.Error.Code != CodeProviderFailed || !strings.Contains(r.Error.Message, "circuit breaker is open") || !data.BreakerOpen || data.Retry != 60 {
		t.Fatalf("second call: %+v %s", r.Error, r.Error.Data)
	}
	if n := len(down.callLog()); n != 1 {
		t.Fatalf("provider called %d times, want 1: the open breaker fails fast", n)
	}
}

func TestIDsEchoed(t *testing.T) {
	srv := newTestServer(t, New(nil, Info{}, nil))
	for _, id := range []string{`"abc"`, `-3`, `1.5`, `null`, `12345678901234567890`} {
		r := call(t, srv, `{"jsonrpc":"2.0","id":`+id+`,"method":"initialize"}`)
		if string(r.ID) != id {
			t.Errorf("id %s came back as %s", id, r.ID)
		}
	}
}

func TestNotificationGets204AndDoesNotSearch(t *testing.T) {
	fake := &fakeProvider{results: threeResults}
	srv := newTestServer(t, New(fake, Info{}, nil))
	for _, body := range []string{
		`{"jsonrpc":"2.0","method":"search","params":{"query":"q"}}`,
		`{"jsonrpc":"2.0","method":"no_such_method"}`,
		`{"jsonrpc":"2.0","method":"search","params":[]}`,
	} {
		resp, b := post(t, srv, body)
		if resp.StatusCode != http.StatusNoContent || len(b) != 0 {
			t.Fatalf("%s: HTTP %d %q", body, resp.StatusCode, b)
		}
	}
	if n := len(fake.callLog()); n != 0 {
		t.Fatalf("notifications ran %d searches", n)
	}
}

func TestBatchMixed(t *testing.T) {
	srv := newTestServer(t, New(&fakeProvider{results: threeResults}, Info{}, nil))
	resp, b := post(t, srv, `[
		{"jsonrpc":"2.0","id":1,"method":"initialize"},
		{"jsonrpc":"2.0","method":"search","params":{"query":"notified"}},
		1,
		{"jsonrpc":"2.0","id":2,"method":"nope"},
		{"jsonrpc":"2.0","id":"s","method":"search","params":{"topic":"go","max_results":1}},
		{"jsonrpc":"2.0","method":"nope"},
		{"jsonrpc":"2.0","id":3,"method":"search","params":{"query":""}},
		{"foo":"boo"}
	]`)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("HTTP %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var replies []rpcReply
	if err := json.Unmarshal(b, &replies); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	type summary struct {
		id   string
		code int
	}
	var got []summary
	for _, r := range replies {
		s := summary{id: string(r.ID)}
		if r.Error != nil {
			s.code = r.Error.Code
		}
		got = append(got, s)
	}
	want := []summary{{"1", 0}, {"null", CodeInvalidRequest}, {"2", CodeMethodNotFound}, {`"s"`, 0},
		{"3", CodeInvalidParams}, {"null", CodeInvalidRequest}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v\n%s", got, want, b)
	}
	var res searchResult
	_ = json.Unmarshal(replies[3].Result, &res)
	if res.Count != 1 {
		t.Fatalf("search in batch: %s", replies[3].Result)
	}
}

func TestBatchOfNonObjects(t *testing.T) {
	srv := newTestServer(t, New(nil, Info{}, nil))
	resp, b := post(t, srv, `[1,2,3]`)
	var replies []rpcReply
	if err := json.Unmarshal(b, &replies); err != nil || resp.StatusCode != 200 || len(replies) != 3 {
		t.Fatalf("HTTP %d %s", resp.StatusCode, b)
	}
	for _, r := range replies {
		if r.Error == nil || r.Error.Code != CodeInvalidRequest || string(r.ID) != "null" {
			t.Fatalf("got %s", b)
		}
	}
}

func TestAllNotificationBatchGets204(t *testing.T) {
	srv := newTestServer(t, New(&fakeProvider{}, Info{}, nil))
	resp, b := post(t, srv, `[{"jsonrpc":"2.0","method":"initialize"},{"jsonrpc":"2.0","method":"shutdown"}]`)
	if resp.StatusCode != http.StatusNoContent || len(b) != 0 {
		t.Fatalf("HTTP %d %q", resp.StatusCode, b)
	}
}

// batchOf is a batch of n initialize calls.
func batchOf(n int) string {
	calls := make([]string, n)
	for i := range calls {
		calls[i] = `{"jsonrpc":"2.0","id":1,"method":"initialize"}`
	}
	return "[" + strings.Join(calls, ",") + "]"
}

func TestBatchTooLarge(t *testing.T) {
	srv := newTestServer(t, New(nil, Info{}, nil))
	if r := call(t, srv, batchOf(DefaultMaxBatch+1)); r.Error == nil || r.Error.Code != CodeInvalidRequest ||
		!strings.Contains(r.Error.Message, "limit of 50") {
		t.Fatalf("got %+v", r.Error)
	}
}

// WithMaxBatch sets the cap (ragd passes http.max_batch_calls); a batch at
// the cap is answered call by call.
func TestBatchLimitConfigurable(t *testing.T) {
	srv := newTestServer(t, New(nil, Info{}, nil, WithMaxBatch(3)))
	if r := call(t, srv, batchOf(4)); r.Error == nil || r.Error.Code != CodeInvalidRequest ||
		!strings.Contains(r.Error.Message, "batch of 4 messages exceeds the limit of 3") {
		t.Fatalf("batch of 4: %+v", r.Error)
	}
	resp, b := post(t, srv, batchOf(3))
	var replies []rpcReply
	if err := json.Unmarshal(b, &replies); err != nil || resp.StatusCode != 200 || len(replies) != 3 {
		t.Fatalf("batch of 3: HTTP %d %s", resp.StatusCode, b)
	}
}

// A body not labelled application/json is refused with 415 before it is
// parsed: a web page can POST text/plain cross-site without a preflight.
func TestJSONRPCRefusesOtherContentTypes(t *testing.T) {
	fake := &fakeProvider{results: threeResults}
	srv := newTestServer(t, New(fake, Info{}, nil))
	body := `{"jsonrpc":"2.0","id":1,"method":"search","params":{"query":"planted"}}`
	for _, ct := range []string{"text/plain", "text/plain; charset=utf-8", "application/x-www-form-urlencoded",
		"multipart/form-data; boundary=x", "", "application/jsonp", "application/json-seq", "text/json", ";;"} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/", strings.NewReader(body))
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var out struct{ Detail string }
		if resp.StatusCode != http.StatusUnsupportedMediaType || json.Unmarshal(b, &out) != nil ||
			!strings.Contains(out.Detail, "application/json") {
			t.Errorf("Content-Type %q: HTTP %d %s, want 415 naming application/json", ct, resp.StatusCode, b)
		}
	}
	if n := len(fake.callLog()); n != 0 {
		t.Fatalf("provider called %d times for refused bodies", n)
	}
	// Parameters are fine.
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/", strings.NewReader(body))
	req.Header.Set("Content-Type", "Application/JSON; charset=utf-8")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("application/json; charset=utf-8: HTTP %d", resp.StatusCode)
	}
}

func TestBodyTooLarge(t *testing.T) {
	srv := newTestServer(t, New(nil, Info{}, nil))
	body := `{"jsonrpc":"2.0","id":1,"method":"search","params":{"query":"` + strings.Repeat("x", maxBodyBytes) + `"}}`
	if r := call(t, srv, body); r.Error == nil || r.Error.Code != CodeInvalidRequest {
		t.Fatalf("got %+v", r.Error)
	}
}

func TestJSONRPCRejectsGet(t *testing.T) {
	srv := newTestServer(t, New(nil, Info{}, nil))
	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" {
		t.Fatalf("HTTP %d", resp.StatusCode)
	}
}
