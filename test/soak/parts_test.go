package soak

import (
	"strings"
	"testing"
	"time"
)

func TestMCPProblem(t *testing.T) {
	for name, c := range map[string]struct{ body, want string }{
		"sse result":      {"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n\n", ""},
		"json result":     {`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`, ""},
		"tool error":      {"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"isError\":true}}\n\n", "isError"},
		"json-rpc error":  {`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"unknown tool"}}`, `json-rpc error "unknown tool"`},
		"neither":         {`{"jsonrpc":"2.0","id":1}`, "no result"},
		"not json at all": {"event: message\ndata: <html>\n\n", "bad json-rpc"},
	} {
		if got := mcpProblem([]byte(c.body)); got != c.want {
			t.Errorf("%s: mcpProblem = %q, want %q", name, got, c.want)
		}
	}
}

func TestPercentile(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	if p := percentile(ds, 0.50); p != 50*time.Millisecond {
		t.Errorf("p50 of 1..100 ms = %s", p)
	}
	if p := percentile(ds, 0.99); p != 99*time.Millisecond {
		t.Errorf("p99 of 1..100 ms = %s", p)
	}
	if p := percentile(nil, 0.99); p != 0 {
		t.Errorf("p99 of nothing = %s", p)
	}
}

func TestRecorderCountsFailuresByKind(t *testing.T) {
	r := NewRecorder()
	r.OK("search", time.Millisecond)
	r.Fail("search", 2*time.Millisecond, "500", "POST /tools/rag_search → {}")
	r.Fail("search", 2*time.Millisecond, "500", "again")
	w := r.Window()
	if w.Requests != 3 || w.Errors != 2 {
		t.Errorf("window = %+v, want 3 requests and 2 errors", w)
	}
	if w := r.Window(); w.Requests != 0 || w.Errors != 2 {
		t.Errorf("next window = %+v, want no requests and the 2 errors so far", w)
	}
	ops, errs, failures := r.Summary()
	if len(ops) != 1 || ops[0].Requests != 3 || ops[0].Errors != 2 || errs["search: 500"] != 2 || len(failures) != 2 {
		t.Errorf("summary = %+v %v %v", ops, errs, failures)
	}
}

func TestLoadSettings(t *testing.T) {
	t.Setenv("SOAK_DURATION", "1m")
	t.Setenv("SOAK_CONCURRENCY", "2")
	s, err := LoadSettings()
	if err != nil || s.Duration != time.Minute || s.Concurrency != 2 || s.Warmup != 12*time.Second || s.Interval != 5*time.Second {
		t.Errorf("LoadSettings = %+v, %v; want 1m, 2, warm-up 12s, every 5s", s, err)
	}
	for name, env := range map[string][2]string{
		"bad duration":     {"SOAK_DURATION", "ten minutes"},
		"zero concurrency": {"SOAK_CONCURRENCY", "0"},
		"warm-up too long": {"SOAK_WARMUP", "2m"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv(env[0], env[1])
			if _, err := LoadSettings(); err == nil || !strings.Contains(err.Error(), env[0]) {
				t.Errorf("%s=%s: error %v, want one naming %s", env[0], env[1], err, env[0])
			}
		})
	}
}
