package soak

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"time"
)

// Namespaces the soak writes to and searches.
var Namespaces = []string{"soak-a", "soak-b", "soak-c"}

const (
	uploadSlots = 8 // files each worker keeps re-uploading with new content
	maxTexts    = 6 // inline-text documents a worker keeps before deleting the oldest
	jobDeadline = 3 * time.Minute
)

// uploadExts are the file types the uploads cycle through, by slot.
var uploadExts = []string{".md", ".html", ".txt", ".pdf"}

// doc is a document a worker indexed and may delete.
type doc struct{ id, ns string }

// Worker is one of the soak's concurrent clients; it owns its documents,
// so its deletes and re-ingests never race another worker's.
type Worker struct {
	id       int
	c        *Client
	corpus   *Corpus
	rng      *rand.Rand
	versions [uploadSlots]int
	texts    []doc // indexed inline texts, oldest first
	deleted  []doc // recently deleted, for the deliberate 404s
	seq      int
}

// NewWorker is worker id of the soak.
func NewWorker(id int, c *Client, corpus *Corpus) *Worker {
	return &Worker{id: id, c: c, corpus: corpus, rng: rand.New(rand.NewPCG(uint64(id), 42))}
}

// step is one kind of request and how often it is picked (weight).
type step struct {
	weight int
	run    func(*Worker, context.Context)
}

var steps = []step{
	{14, (*Worker).searchKeyword}, {14, (*Worker).searchHybrid},
	{14, (*Worker).mcpRetrieve}, {8, (*Worker).mcpQuery}, {6, (*Worker).restQuery},
	{12, (*Worker).upload}, {12, (*Worker).ingestText},
	{6, (*Worker).deleteText}, {6, (*Worker).list}, {4, (*Worker).deliberate},
}

// Run sends requests until ctx ends.
func (w *Worker) Run(ctx context.Context) {
	total := 0
	for _, s := range steps {
		total += s.weight
	}
	for ctx.Err() == nil {
		n := w.rng.IntN(total)
		for _, s := range steps {
			if n -= s.weight; n < 0 {
				s.run(w, ctx)
				break
			}
		}
	}
}

func (w *Worker) ns() string    { return Namespaces[w.rng.IntN(len(Namespaces))] }
func (w *Worker) query() string { return Queries[w.rng.IntN(len(Queries))] }
func (w *Worker) topK() int     { return 1 + w.rng.IntN(10) }
func (w *Worker) meta() bool    { return w.rng.IntN(3) == 0 }
func kbQuery(ns string) string  { return "?kb_name=" + url.QueryEscape(ns) }
func (w *Worker) name(slot int) string {
	return fmt.Sprintf("w%d-slot%d%s", w.id, slot, uploadExts[slot%len(uploadExts)])
}

func (w *Worker) searchKeyword(ctx context.Context) { w.search(ctx, "search_keyword", "keyword") }
func (w *Worker) searchHybrid(ctx context.Context)  { w.search(ctx, "search_hybrid", "hybrid") }

func (w *Worker) search(ctx context.Context, op, mode string) {
	var out struct{ Count *int }
	req := map[string]any{"query": w.query(), "kb_name": w.ns(), "top_k": w.topK(), "mode": mode}
	if w.c.jsonCall(ctx, op, 200, "POST", "/tools/rag_search", req, &out) && out.Count == nil {
		w.c.rec.Fail(op, 0, "no count", "rag_search answered without count")
	}
}

func (w *Worker) mcpRetrieve(ctx context.Context) {
	w.c.mcpCall(ctx, "mcp_retrieve", "core_retrieve_text", map[string]any{"query": w.query(), "kb_name": w.ns(), "top_k": w.topK()}, w.meta())
}

func (w *Worker) mcpQuery(ctx context.Context) {
	w.c.mcpCall(ctx, "mcp_query", "core_query", map[string]any{"query": w.query(), "kb_name": w.ns()}, w.meta())
}

// restQuery asks rag_query for an answer, half the time streamed as
// server-sent events (which must end with event: done, not event: error).
func (w *Worker) restQuery(ctx context.Context) {
	req := map[string]any{"query": w.query(), "kb_name": w.ns()}
	if w.rng.IntN(2) == 0 {
		w.c.jsonCall(ctx, "rest_query", 200, "POST", "/tools/rag_query", req, nil)
		return
	}
	req["stream"] = true
	body, _ := json.Marshal(req)
	start := time.Now()
	out, ok := w.c.call(ctx, "rest_query_stream", 200, "POST", "/tools/rag_query", "application/json", body)
	switch {
	case !ok:
	case !bytes.Contains(out, []byte("event: done")) || bytes.Contains(out, []byte("event: error")):
		w.c.rec.Fail("rest_query_stream", time.Since(start), "stream", string(out))
	default:
		w.c.rec.OK("rest_query_stream", time.Since(start))
	}
}

// list pages jobs or documents, or reads the stats.
func (w *Worker) list(ctx context.Context) {
	switch w.rng.IntN(3) {
	case 0:
		w.c.jsonCall(ctx, "list_jobs", 200, "GET", "/jobs"+kbQuery(w.ns())+"&limit=20", nil, nil)
	case 1:
		w.c.jsonCall(ctx, "list_documents", 200, "GET", "/documents"+kbQuery(w.ns())+"&limit=20", nil, nil)
	default:
		w.c.jsonCall(ctx, "stats", 200, "GET", "/tools/rag_stats", nil, nil)
	}
}

// deliberate sends a request that must be refused, with that status: the
// error paths are soaked too.
func (w *Worker) deliberate(ctx context.Context) {
	switch w.rng.IntN(3) {
	case 0:
		req := map[string]any{"query": w.query(), "kb_name": w.ns(), "top_k": 99}
		w.c.jsonCall(ctx, "bad_top_k(422)", 422, "POST", "/tools/rag_search", req, nil)
	case 1:
		w.c.jsonCall(ctx, "unknown_job(404)", 404, "GET", "/jobs/no-such-job-"+fmt.Sprint(w.rng.IntN(1000)), nil, nil)
	default:
		if len(w.deleted) == 0 {
			return
		}
		d := w.deleted[w.rng.IntN(len(w.deleted))]
		w.c.jsonCall(ctx, "deleted_doc(404)", 404, "GET", "/documents/"+url.PathEscape(d.id)+kbQuery(d.ns), nil, nil)
	}
}
