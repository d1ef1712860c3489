package api_test

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"ragd/internal/server/api"
	"ragd/internal/testkit/stack"
)

func TestDocumentsStatsAndClear(t *testing.T) {
	t.Parallel()
	s := stack.Start(t, stack.Config(t), true)
	d1 := indexText(t, s, "books", "Moby-Dick follows Captain Ahab's hunt for the white whale.", "novel")
	indexText(t, s, "books", "War and Peace follows five aristocratic families through the Napoleonic era.")
	d3 := indexText(t, s, "films", "Casablanca is set in Morocco during the Second World War.")

	list := s.Do(t, http.MethodGet, "/documents?kb_name=books", nil)
	if list.Status != 200 || num(list.JSON, "count") != 2 || str(list.JSON, "kb_name") != "books" {
		t.Fatalf("list: %d %s", list.Status, list.Body)
	}
	doc := s.Do(t, http.MethodGet, "/documents/"+d1, nil) // no kb_name: found in any namespace
	if doc.Status != 200 || str(doc.JSON, "kb_name") != "books" || num(doc.JSON, "chunks") != 1 || str(doc.JSON, "content_hash") == "" {
		t.Fatalf("get: %d %s", doc.Status, doc.Body)
	}
	if r := s.Do(t, http.MethodGet, "/documents/"+d1+"?kb_name=films", nil); r.Status != 404 {
		t.Fatalf("get in the wrong namespace: %d %s", r.Status, r.Body)
	}
	if r := s.Do(t, http.MethodGet, "/documents?kb_name=Bad!", nil); r.Status != 422 {
		t.Fatalf("bad kb_name: %d %s", r.Status, r.Body)
	}

	stats := s.Do(t, http.MethodGet, "/tools/rag_stats", nil)
	var st struct {
		Status     string
		Statistics struct {
			CollectionName string `json:"collection_name"`
			NumEntities    int    `json:"num_entities"`
			MetricType     string `json:"metric_type"`
			Dimension      int
			Namespaces     map[string]struct{ Documents, Chunks int }
			Queue          struct{ Pending, Active, Failed int }
		}
	}
	_ = json.Unmarshal(stats.Body, &st)
	if stats.Status != 200 || st.Status != "success" || st.Statistics.NumEntities != 3 || st.Statistics.Dimension != 100 ||
		st.Statistics.CollectionName != s.Config.Weaviate.Collection || st.Statistics.MetricType != "cosine" ||
		st.Statistics.Namespaces["books"].Documents != 2 || st.Statistics.Namespaces["films"].Chunks != 1 {
		t.Fatalf("stats: %d %s", stats.Status, stats.Body)
	}

	del := s.Do(t, http.MethodDelete, "/documents/"+d1, nil)
	if del.Status != 200 || num(del.JSON, "chunks_deleted") != 1 || str(del.JSON, "status") != "deleted" {
		t.Fatalf("delete: %d %s", del.Status, del.Body)
	}
	if r := s.Do(t, http.MethodDelete, "/documents/"+d1, nil); r.Status != 404 {
		t.Fatalf("delete twice: %d", r.Status)
	}
	if r := searchBody(t, s, map[string]any{"query": "Captain Ahab white whale", "kb_name": "books"}); anyContains(r, "text", "Ahab") {
		t.Fatalf("deleted document still found: %v", r)
	}

	// Clearing: one namespace; everything only with confirmation.
	if r := s.Do(t, http.MethodDelete, "/tools/rag_clear", nil); r.Status != 422 {
		t.Fatalf("clear without a target: %d %s", r.Status, r.Body)
	}
	if r := s.Do(t, http.MethodDelete, "/tools/rag_clear?all=true", nil); r.Status != 422 || !strings.Contains(string(r.Body), "confirm") {
		t.Fatalf("clear all without confirm: %d %s", r.Status, r.Body)
	}
	if r := s.Do(t, http.MethodDelete, "/tools/rag_clear?all=maybe", nil); r.Status != 422 {
		t.Fatalf("clear all=maybe: %d %s", r.Status, r.Body)
	}
	if r := s.Do(t, http.MethodDelete, "/tools/rag_clear?kb_name=books", nil); r.Status != 200 {
		t.Fatalf("clear books: %d %s", r.Status, r.Body)
	}
	if r := searchBody(t, s, map[string]any{"query": "War and Peace", "kb_name": "books"}); len(r) != 0 {
		t.Fatalf("cleared namespace still answers: %v", r)
	}
	if r := s.Do(t, http.MethodGet, "/documents/"+d3, nil); r.Status != 200 {
		t.Fatalf("clearing books touched films: %d", r.Status)
	}
	if r := s.Do(t, http.MethodDelete, "/tools/rag_clear?all=true&confirm=true", nil); r.Status != 200 || !strings.Contains(string(r.Body), "films") {
		t.Fatalf("clear all: %d %s", r.Status, r.Body)
	}
	if r := searchBody(t, s, map[string]any{"query": "Casablanca Morocco", "kb_name": "films"}); len(r) != 0 {
		t.Fatalf("clear all left %v", r)
	}
	// The same text can be indexed again after a clear (no stale dedup entry).
	again := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"text": "Casablanca is set in Morocco during the Second World War.", "kb_name": "films"})
	if again.JSON["dedup_hit"] != false {
		t.Fatalf("after clear, re-index was a dedup hit: %s", again.Body)
	}
}

func TestToolsMetricsAndOpenAPI(t *testing.T) {
	t.Parallel()
	s := stack.Start(t, stack.Config(t), false)
	tools := s.Do(t, http.MethodGet, "/tools", nil)
	var tl struct {
		Tools []struct{ Name, Description, Endpoint, Method string }
	}
	_ = json.Unmarshal(tools.Body, &tl)
	names := map[string]bool{}
	for _, tool := range tl.Tools {
		names[tool.Name] = tool.Description != "" && tool.Endpoint == "/tools/"+tool.Name && tool.Method != ""
	}
	for _, want := range []string{"rag_query", "rag_search", "rag_index", "rag_index_directory", "rag_stats", "rag_clear"} {
		if !names[want] {
			t.Errorf("GET /tools lacks %s: %s", want, tools.Body)
		}
	}

	searchBody(t, s, map[string]any{"query": "anything"})
	// A job on the queue (no worker runs here) makes Asynq's collector report it.
	if r := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"text": "queued for the metrics"}); r.Status != 202 {
		t.Fatalf("enqueue: %d %s", r.Status, r.Body)
	}
	m := s.Do(t, http.MethodGet, "/metrics", nil)
	for _, want := range []string{
		`ragd_http_request_duration_seconds_bucket{method="POST",route="/tools/rag_search",status="200"`,
		`ragd_circuit_breaker_state{dependency="weaviate"} 0`,
		`ragd_dependency_call_duration_seconds_count{dependency="embedder",outcome="ok"}`,
		`asynq_tasks_enqueued_total{queue="` + s.Config.Worker.Queue + `",state="pending"} 1`,
	} {
		if !strings.Contains(string(m.Body), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}

	// The OpenAPI document describes exactly the routes the server serves.
	spec := s.Do(t, http.MethodGet, "/openapi.json", nil)
	var doc struct {
		OpenAPI string                    `json:"openapi"`
		Paths   map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(spec.Body, &doc); err != nil || !strings.HasPrefix(doc.OpenAPI, "3.") {
		t.Fatalf("openapi.json: %v %s", err, spec.Body[:min(200, len(spec.Body))])
	}
	e := api.New(s.APIServices(), api.Options{MaxBodyBytes: 1 << 20, Log: stack.Logger(t)})
	served := map[string]bool{}
	for _, r := range e.Routes() {
		// Not API routes: Swagger UI, the Asynq UI, MCP, the metadata and
		// the web console.
		if strings.HasPrefix(r.Path, "/docs") || strings.HasPrefix(r.Path, "/monitoring") || r.Path == "/mcp" ||
			r.Path == "/ui" || strings.HasPrefix(r.Path, "/ui/") ||
			strings.HasPrefix(r.Path, "/.well-known/") || r.Method == echo.RouteNotFound {
			continue
		}
		path := regexp.MustCompile(`:(\w+)`).ReplaceAllString(r.Path, "{$1}")
		served[r.Method+" "+path] = true
		if _, ok := doc.Paths[path][strings.ToLower(r.Method)]; !ok {
			t.Errorf("served but not documented: %s %s", r.Method, path)
		}
	}
	for path, ops := range doc.Paths {
		for method := range ops {
			if method != "parameters" && !served[strings.ToUpper(method)+" "+path] {
				t.Errorf("documented but not served: %s %s", method, path)
			}
		}
	}
	ui := s.Do(t, http.MethodGet, "/docs/", nil)
	if ui.Status != 200 || !strings.Contains(string(ui.Body), "/openapi.json") || strings.Contains(string(ui.Body), "https://") {
		t.Fatalf("/docs/: %d %.300s", ui.Status, ui.Body)
	}
}

// GET /documents pages through a namespace in a fixed order: source, then id.
func TestListDocumentsPages(t *testing.T) {
	t.Parallel()
	s := stack.Start(t, stack.Config(t), true)
	want := map[string]bool{}
	for i := range 7 {
		want[indexText(t, s, "shelf", fmt.Sprintf("Volume %d of the shelf catalogue: tide tables for harbour number %d.", i, i*7))] = true
	}
	indexText(t, s, "other", "A document of another namespace, not to be listed.")

	type doc struct {
		ID     string `json:"document_id"`
		Source string `json:"source"`
	}
	type page struct {
		KBName     string `json:"kb_name"`
		Documents  []doc
		Count      int
		Total      int
		NextOffset *int `json:"next_offset"`
	}
	get := func(query string) page {
		t.Helper()
		r := s.Do(t, http.MethodGet, "/documents?kb_name=shelf"+query, nil)
		var p page
		if err := json.Unmarshal(r.Body, &p); r.Status != 200 || err != nil {
			t.Fatalf("list%s: %d %v %s", query, r.Status, err, r.Body)
		}
		if _, present := r.JSON["next_offset"]; present != (p.NextOffset != nil) {
			t.Fatalf("list%s: next_offset null instead of absent: %s", query, r.Body)
		}
		return p
	}

	var listed []doc
	offset := 0
	for i, w := range []struct{ count, next int }{{3, 3}, {3, 6}, {1, -1}} {
		p := get(fmt.Sprintf("&limit=3&offset=%d", offset))
		next := -1
		if p.NextOffset != nil {
			next = *p.NextOffset
		}
		if p.KBName != "shelf" || p.Count != w.count || len(p.Documents) != w.count || p.Total != 7 || next != w.next {
			t.Fatalf("page %d: count %d (%d documents), total %d, next_offset %d; want count %d, total 7, next_offset %d",
				i, p.Count, len(p.Documents), p.Total, next, w.count, w.next)
		}
		listed = append(listed, p.Documents...)
		offset = next
	}
	seen := map[string]bool{}
	for _, d := range listed {
		if !want[d.ID] || seen[d.ID] {
			t.Fatalf("document %s listed twice or not of the namespace: %v", d.ID, listed)
		}
		seen[d.ID] = true
	}
	if len(seen) != 7 {
		t.Fatalf("pages listed %d documents, want 7", len(seen))
	}
	if !slices.IsSortedFunc(listed, func(a, b doc) int {
		return cmp.Or(strings.Compare(a.Source, b.Source), strings.Compare(a.ID, b.ID))
	}) {
		t.Fatalf("not ordered by source, then id: %v", listed)
	}
	// The default page holds them all, in the same order, every time.
	for range 3 {
		all := get("")
		if all.Count != 7 || all.Total != 7 || all.NextOffset != nil || !slices.Equal(all.Documents, listed) {
			t.Fatalf("default page: %+v, want %v", all, listed)
		}
	}
	if p := get("&offset=50"); p.Count != 0 || p.Documents == nil || p.Total != 7 || p.NextOffset != nil {
		t.Fatalf("offset past the end: %+v", p)
	}
	if p := get("&limit=1000&offset=6"); p.Count != 1 || p.NextOffset != nil || p.Documents[0] != listed[6] {
		t.Fatalf("last document: %+v", p)
	}

	for _, c := range []struct{ query, field, typ, msg string }{
		{"limit=0", "limit", "value_error", "between 1 and 1000"},
		{"limit=1001", "limit", "value_error", "between 1 and 1000"},
		{"limit=-1", "limit", "value_error", "between 1 and 1000"},
		{"offset=-1", "offset", "value_error", "0 or more"},
		{"limit=abc", "limit", "type_error", "integer"},
		{"offset=1.5", "offset", "type_error", "integer"},
	} {
		r := s.Do(t, http.MethodGet, "/documents?kb_name=shelf&"+c.query, nil)
		detail, _ := r.JSON["detail"].([]any)
		if r.Status != 422 || len(detail) != 1 {
			t.Fatalf("%s: %d %s", c.query, r.Status, r.Body)
		}
		first, _ := detail[0].(map[string]any)
		if loc := fmt.Sprint(first["loc"]); loc != "[query "+c.field+"]" || str(first, "type") != c.typ || !strings.Contains(str(first, "msg"), c.msg) {
			t.Fatalf("%s: detail %s, want loc [query %s], type %s, msg with %q", c.query, r.Body, c.field, c.typ, c.msg)
		}
	}

	// rag_stats counts the documents without listing them.
	stats := s.Do(t, http.MethodGet, "/tools/rag_stats", nil)
	var st struct {
		Statistics struct {
			Namespaces map[string]struct{ Documents, Chunks int }
		}
	}
	_ = json.Unmarshal(stats.Body, &st)
	if ns := st.Statistics.Namespaces; stats.Status != 200 || ns["shelf"].Documents != 7 || ns["other"].Documents != 1 {
		t.Fatalf("stats: %d %s", stats.Status, stats.Body)
	}
}
