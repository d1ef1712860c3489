package telemetry_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"ragd/internal/platform/kv"
	"ragd/internal/platform/telemetry"
	"ragd/internal/testkit/collector"
	"ragd/internal/testkit/testenv"
)

// caller is a span of a client's, as its traceparent names it.
const (
	callerTrace  = "4bf92f3577b34da6a3ce929d0e0e4736"
	callerSpan   = "00f067aa0ba902b7"
	callerParent = "00-" + callerTrace + "-" + callerSpan + "-01"
)

// start runs a Provider exporting to c, shut down when the test ends.
func start(t *testing.T, c *collector.Collector, edit ...func(*telemetry.Config)) *telemetry.Provider {
	t.Helper()
	cfg := telemetry.Config{Endpoint: c.URL(), Protocol: telemetry.ProtocolHTTP, ServiceName: "ragd-test", SampleRatio: 1}
	for _, e := range edit {
		e(&cfg)
	}
	p, err := telemetry.New(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Shutdown(context.Background()) })
	return p
}

func flush(t *testing.T, p *telemetry.Provider) {
	t.Helper()
	if err := p.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// searchRequest traces a rag_search request under the caller's
// traceparent, with a "search" span under it, and returns what c received:
// every span, the request's and the search's.
func searchRequest(t *testing.T, c *collector.Collector, p *telemetry.Provider) (spans, reqs, kids []collector.Span) {
	t.Helper()
	r, _ := http.NewRequest(http.MethodPost, "http://ragd/tools/rag_search", nil)
	r.Header.Set("traceparent", callerParent)
	ctx, req := p.StartRequest(r, "/tools/rag_search")
	_, child := telemetry.Start(ctx, "search")
	child.End(nil)
	req.EndRequest(200)
	flush(t, p)
	spans = c.Spans()
	return spans, collector.Named(spans, "POST /tools/rag_search"), collector.Named(spans, "search")
}

// An HTTP request with a traceparent continues its caller's trace, and
// the spans opened under it are its children.
func TestRequestContinuesCallersTrace(t *testing.T) {
	c := collector.Start(t)
	spans, reqs, kids := searchRequest(t, c, start(t, c))
	if len(reqs) != 1 || len(kids) != 1 {
		t.Fatalf("spans:\n%s", collector.Tree(spans))
	}
	if s := reqs[0]; s.TraceID != callerTrace || s.ParentID != callerSpan || s.Kind != "SERVER" || s.Attrs["http.route"] != "/tools/rag_search" ||
		s.Attrs["http.response.status_code"] != "200" || s.Service != "ragd-test" {
		t.Errorf("request span %+v: want the caller's child, a server span of the route, status 200", s)
	}
	if kids[0].ParentID != reqs[0].SpanID || kids[0].TraceID != callerTrace {
		t.Errorf("search span %+v: want the request's child", kids[0])
	}
}

// A tool call's _meta.traceparent is its parent, over the HTTP
// request's.
func TestToolCallContinuesMetaTrace(t *testing.T) {
	c := collector.Start(t)
	p := start(t, c)
	header := http.Header{"Traceparent": {"00-11111111111111111111111111111111-2222222222222222-01"}}
	ctx := p.Extract(context.Background(), header)
	_, tool := p.StartTool(ctx, map[string]any{"traceparent": callerParent, "tracestate": "vendor=x"}, "core_retrieve_text")
	tool.End(nil)
	_, plain := p.StartTool(ctx, nil, "core_stats")
	plain.End(nil)
	flush(t, p)
	spans := c.Spans()
	meta, hdr := collector.Named(spans, "tools/call core_retrieve_text"), collector.Named(spans, "tools/call core_stats")
	if len(meta) != 1 || len(hdr) != 1 {
		t.Fatalf("spans:\n%s", collector.Tree(spans))
	}
	if s := meta[0]; s.TraceID != callerTrace || s.ParentID != callerSpan || s.Attrs["gen_ai.tool.name"] != "core_retrieve_text" {
		t.Errorf("call with _meta: %+v, want the _meta traceparent's child", s)
	}
	if s := hdr[0]; s.TraceID != "11111111111111111111111111111111" || s.ParentID != "2222222222222222" {
		t.Errorf("call without _meta: %+v, want the HTTP header's child", s)
	}
}

// A job's payload carries the enqueuing span across the queue: the job's
// run is its child, after a span of its wait, and links to the job that
// enqueued it; a retry is a run of its own, without a wait.
func TestJobContinuesEnqueuingTrace(t *testing.T) {
	c := collector.Start(t)
	p := start(t, c)
	r, _ := http.NewRequest(http.MethodPost, "http://ragd/tools/rag_index_directory", nil)
	ctx, req := p.StartRequest(r, "/tools/rag_index_directory")
	carrier := telemetry.CarrierOf(ctx)
	req.EndRequest(202)
	if carrier == nil || carrier.TraceID() == "" {
		t.Fatalf("carrier of a traced request: %+v", carrier)
	}
	time.Sleep(5 * time.Millisecond) // the wait in the queue
	dirCtx, dir := p.StartJob(context.Background(), telemetry.Job{ID: "d1", Type: "ingest:directory", Namespace: "docs", Attempt: 1, Trace: carrier})
	fileCarrier := telemetry.CarrierOf(dirCtx)
	fileCarrier.LinkTo(dirCtx)
	dir.End(nil)
	_, file := p.StartJob(context.Background(), telemetry.Job{ID: "d1.0", Type: "ingest:document", Namespace: "docs", DocumentID: "doc1",
		ParentID: "d1", Attempt: 1, Trace: fileCarrier})
	file.End(nil)
	_, retry := p.StartJob(context.Background(), telemetry.Job{ID: "d1.0", Type: "ingest:document", Namespace: "docs", ParentID: "d1", Attempt: 2, Trace: fileCarrier})
	retry.End(nil)
	flush(t, p)
	spans := c.Spans()
	t.Logf("received:\n%s", collector.Tree(spans))
	request := collector.Named(spans, "POST /tools/rag_index_directory")[0]
	dirRun, dirWait := collector.Named(spans, "job ingest:directory"), collector.Named(spans, "job.wait ingest:directory")
	if len(dirRun) != 1 || len(dirWait) != 1 || dirRun[0].ParentID != request.SpanID || dirWait[0].ParentID != request.SpanID {
		t.Fatalf("directory job: want its run and its wait under the request")
	}
	if w := dirWait[0]; w.End.Sub(w.Start) < 5*time.Millisecond || w.End.After(dirRun[0].Start.Add(time.Millisecond)) {
		t.Errorf("wait %s–%s, run from %s: want the time from the enqueue to the run", w.Start, w.End, dirRun[0].Start)
	}
	runs := collector.Named(spans, "job ingest:document")
	if len(runs) != 2 || len(collector.Named(spans, "job.wait ingest:document")) != 1 {
		t.Fatalf("file job: want 2 runs and 1 wait")
	}
	for _, run := range runs {
		if run.TraceID != request.TraceID || run.ParentID != dirRun[0].SpanID || run.Attrs["ragd.job.parent_id"] != "d1" ||
			len(run.Links) != 1 || run.Links[0].SpanID != dirRun[0].SpanID {
			t.Errorf("file job run %+v: want the directory job's child, linked to it", run)
		}
	}
	if runs[0].Attrs["ragd.job.attempt"] == runs[1].Attrs["ragd.job.attempt"] {
		t.Errorf("retry: attempts %s and %s, want each its own", runs[0].Attrs["ragd.job.attempt"], runs[1].Attrs["ragd.job.attempt"])
	}
}

// Outside a recorded request nothing is opened, and opening nothing
// costs no allocation: with telemetry off, with it on outside any
// request, and under a request the sampler left out.
func TestNothingOutsideATrace(t *testing.T) {
	check := func(when string, ctx context.Context) {
		if _, s := telemetry.Start(ctx, "x"); s.Recording() {
			t.Errorf("%s: a span opened", when)
		}
		if n := testing.AllocsPerRun(100, func() {
			_, s := telemetry.Start(ctx, "x")
			s.End(nil)
		}); n != 0 {
			t.Errorf("%s: Start allocates %v times", when, n)
		}
	}
	check("telemetry off", context.Background())
	if telemetry.CarrierOf(context.Background()) != nil {
		t.Error("a carrier with telemetry off")
	}
	var off *telemetry.Provider
	if ctx, s := off.StartRequest(&http.Request{Header: http.Header{}}, "/"); s.Recording() || ctx == nil {
		t.Error("a nil Provider opened a span")
	}
	c := collector.Start(t)
	p := start(t, c, func(cfg *telemetry.Config) { cfg.SampleRatio = 0 })
	check("telemetry on, no request", context.Background())
	r, _ := http.NewRequest(http.MethodGet, "http://ragd/jobs", nil)
	ctx, req := p.StartRequest(r, "/jobs")
	check("telemetry on, request not sampled", ctx)
	if telemetry.CarrierOf(ctx) == nil {
		t.Error("a request not sampled sends its jobs no trace context: they would start traces of their own")
	}
	req.EndRequest(200)
	flush(t, p)
	if spans := c.Spans(); len(spans) != 0 {
		t.Fatalf("exported outside a recorded trace:\n%s", collector.Tree(spans))
	}
}

// A query's text is kept only with record_queries.
func TestQueryTextOnlyWhenAsked(t *testing.T) {
	for _, record := range []bool{false, true} {
		c := collector.Start(t)
		p := start(t, c, func(cfg *telemetry.Config) { cfg.RecordQueries = record })
		r, _ := http.NewRequest(http.MethodPost, "http://ragd/tools/rag_search", nil)
		ctx, req := p.StartRequest(r, "/tools/rag_search")
		_, s := telemetry.Start(ctx, "search")
		s.Text(telemetry.KeyQuery, "harbour light")
		s.End(nil)
		req.EndRequest(200)
		flush(t, p)
		got := collector.Named(c.Spans(), "search")[0].Attrs[telemetry.KeyQuery]
		if want := map[bool]string{true: "harbour light"}[record]; got != want {
			t.Errorf("record_queries %v: query attribute %q, want %q", record, got, want)
		}
	}
}

// A collector that never answers costs a request nothing: ending spans
// does not wait for the export, a full queue drops spans, and shutting
// down ends within its deadline.
func TestUnreachableCollectorCostsNothing(t *testing.T) {
	p, err := telemetry.New(context.Background(), telemetry.Config{Endpoint: "http://" + collector.Unanswering(t), Protocol: telemetry.ProtocolHTTP,
		ServiceName: "ragd", SampleRatio: 1, ExportTimeout: 500 * time.Millisecond}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for range 20000 { // more than the export queue holds
		r, _ := http.NewRequest(http.MethodGet, "http://ragd/jobs", nil)
		ctx, req := p.StartRequest(r, "/jobs")
		_, s := telemetry.Start(ctx, "work")
		s.End(nil)
		req.EndRequest(200)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("20000 traced requests took %s with the collector silent", d)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start = time.Now()
	_ = p.Shutdown(ctx)
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("shutdown took %s, past its 1 s deadline", d)
	}
}

// A line logged in a traced context carries the trace and span ids.
func TestLogLinesCarryTheTrace(t *testing.T) {
	c := collector.Start(t)
	p := start(t, c)
	var buf bytes.Buffer
	log := slog.New(telemetry.LogHandler(slog.NewTextHandler(&buf, nil))).With("component", "test")
	r, _ := http.NewRequest(http.MethodGet, "http://ragd/jobs", nil)
	r.Header.Set("traceparent", callerParent)
	ctx, req := p.StartRequest(r, "/jobs")
	log.InfoContext(ctx, "traced")
	log.InfoContext(context.Background(), "untraced")
	req.EndRequest(200)
	traceID, spanID := req.IDs()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "trace_id="+callerTrace) || !strings.Contains(lines[0], "span_id="+spanID) ||
		traceID != callerTrace || strings.Contains(lines[1], "trace_id") {
		t.Fatalf("log lines:\n%s\nwant the first with trace_id=%s span_id=%s, the second without", buf.String(), callerTrace, spanID)
	}
}

// Redis commands get spans under a traced request only: Asynq's polling
// and other background commands make no traces.
func TestRedisCommandsOnlyUnderATrace(t *testing.T) {
	c := collector.Start(t)
	p := start(t, c)
	opts, err := redis.ParseURL(testenv.RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opts)
	defer rdb.Close()
	if err := kv.Instrument(rdb, p); err != nil {
		t.Fatal(err)
	}
	key := testenv.Unique(t, "otel")
	rdb.Set(context.Background(), key, "secret document text", time.Minute) // untraced
	r, _ := http.NewRequest(http.MethodGet, "http://ragd/jobs", nil)
	ctx, req := p.StartRequest(r, "/jobs")
	rdb.Get(ctx, key)
	req.EndRequest(200)
	_, reqID := req.IDs()
	flush(t, p)
	spans := c.Spans()
	if len(spans) != 2 || len(collector.Named(spans, "get")) != 1 || collector.Named(spans, "get")[0].ParentID != reqID {
		t.Fatalf("want the request and its get, nothing of the untraced set:\n%s", collector.Tree(spans))
	}
	for _, s := range spans {
		for k, v := range s.Attrs {
			if strings.Contains(v, "secret") {
				t.Errorf("span %s attribute %s holds a command's arguments: %q", s.Name, k, v)
			}
		}
	}
}

// Spans reach an OTLP/gRPC collector as they reach an HTTP one, with the
// configured headers (a hosted collector's key); so do they the HTTP one.
func TestExportOverBothProtocols(t *testing.T) {
	for _, proto := range []string{telemetry.ProtocolGRPC, telemetry.ProtocolHTTP} {
		t.Run(proto, func(t *testing.T) {
			c := collector.Start(t)
			if proto == telemetry.ProtocolGRPC {
				c = collector.StartGRPC(t)
			}
			p := start(t, c, func(cfg *telemetry.Config) {
				cfg.Protocol, cfg.Headers = proto, map[string]string{"x-collector-key": "k-123"}
			})
			spans, reqs, kids := searchRequest(t, c, p)
			if len(reqs) != 1 || len(kids) != 1 || kids[0].ParentID != reqs[0].SpanID || reqs[0].TraceID != callerTrace {
				t.Fatalf("spans:\n%s", collector.Tree(spans))
			}
			if got := c.Header("x-collector-key"); got != "k-123" {
				t.Errorf("the export's x-collector-key header: %q", got)
			}
		})
	}
}
