package soak

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/url"
	"strings"
	"time"
)

// upload re-uploads one of the worker's files with changed content (a new
// version of the same document) and polls its job to the end.
func (w *Worker) upload(ctx context.Context) {
	slot := w.rng.IntN(uploadSlots)
	w.versions[slot]++
	name, ns := w.name(slot), Namespaces[slot%len(Namespaces)]
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("kb_name", ns)
	_ = mw.WriteField("tags", "soak,upload")
	fw, _ := mw.CreateFormFile("file", name)
	_, _ = fw.Write(w.corpus.Upload(w.rng, name, w.versions[slot]))
	_ = mw.Close()

	start := time.Now()
	out, ok := w.c.call(ctx, "upload", 0, "POST", "/documents", mw.FormDataContentType(), body.Bytes())
	if !ok {
		return
	}
	var resp struct {
		Jobs []struct {
			JobID *string `json:"job_id"`
		}
	}
	if err := json.Unmarshal(out, &resp); err != nil || len(resp.Jobs) != 1 {
		w.c.rec.Fail("upload", time.Since(start), "bad answer", string(out))
		return
	}
	w.c.rec.OK("upload", time.Since(start))
	if id := resp.Jobs[0].JobID; id != nil {
		w.pollJob(ctx, *id)
	}
}

// ingestText indexes a new inline text and polls its job; past maxTexts
// the worker deletes its oldest.
func (w *Worker) ingestText(ctx context.Context) {
	w.seq++
	ns := w.ns()
	text := fmt.Sprintf("# Soak note %d of worker %d\n\n%s\n", w.seq, w.id, strings.Join(w.corpus.Paragraphs(w.rng, 2+w.rng.IntN(4)), "\n\n"))
	req := map[string]any{"text": text, "title": fmt.Sprintf("note %d/%d", w.id, w.seq), "kb_name": ns, "tags": []string{"soak"}}
	var resp struct {
		JobID      *string `json:"job_id"`
		DocumentID string  `json:"document_id"`
	}
	if !w.c.jsonCall(ctx, "ingest_text", 0, "POST", "/tools/rag_index", req, &resp) {
		return
	}
	if resp.JobID != nil && !w.pollJob(ctx, *resp.JobID) {
		return
	}
	w.texts = append(w.texts, doc{id: resp.DocumentID, ns: ns})
	if len(w.texts) > maxTexts {
		w.deleteText(ctx)
	}
}

// deleteText deletes the worker's oldest inline text.
func (w *Worker) deleteText(ctx context.Context) {
	if len(w.texts) == 0 {
		return
	}
	d := w.texts[0]
	if w.c.jsonCall(ctx, "delete", 0, "DELETE", "/documents/"+url.PathEscape(d.id)+kbQuery(d.ns), nil, nil) {
		w.texts = w.texts[1:]
		w.deleted = append(w.deleted, d)
		w.deleted = w.deleted[max(0, len(w.deleted)-5):]
	}
}

// pollJob asks for the job every 250 ms until it ends; anything but
// completed (or still running past jobDeadline) is an error.
func (w *Worker) pollJob(ctx context.Context, id string) bool {
	deadline := time.Now().Add(jobDeadline)
	for ctx.Err() == nil {
		var job struct{ Status, Error string }
		if !w.c.jsonCall(ctx, "job_poll", 200, "GET", "/jobs/"+url.PathEscape(id), nil, &job) {
			return false
		}
		switch job.Status {
		case "completed":
			return true
		case "failed", "cancelled":
			w.c.rec.Fail("job", 0, job.Status, id+": "+job.Error)
			return false
		}
		if time.Now().After(deadline) {
			w.c.rec.Fail("job", 0, "not done", fmt.Sprintf("%s still %s after %s", id, job.Status, jobDeadline))
			return false
		}
		select {
		case <-ctx.Done():
		case <-time.After(250 * time.Millisecond):
		}
	}
	return false
}
