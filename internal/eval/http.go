package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// HTTPSearcher searches a running ragd through POST /tools/rag_search.
type HTTPSearcher struct {
	// BaseURL is ragd's address, e.g. http://127.0.0.1:8000.
	BaseURL string
	// KBName is the namespace searched (empty: ragd's default).
	KBName string
	// Mode is hybrid, vector or keyword (empty: ragd's default).
	Mode string
	// Token, when set, is sent as a bearer token.
	Token string
	// Client defaults to a client with a one-minute timeout.
	Client *http.Client
}

var defaultClient = &http.Client{Timeout: time.Minute}

type searchRequest struct {
	Query   string   `json:"query"`
	Queries []string `json:"queries,omitempty"`
	TopK    int      `json:"top_k"`
	KBName  string   `json:"kb_name,omitempty"`
	Mode    string   `json:"mode,omitempty"`
}

type searchResponse struct {
	Results []struct {
		Text string `json:"text"`
	} `json:"results"`
}

// Search implements Searcher.
func (h *HTTPSearcher) Search(ctx context.Context, query string, topK int) ([]string, error) {
	return h.SearchPhrasings(ctx, query, nil, topK)
}

// SearchPhrasings implements PhrasingsSearcher: queries go as rag_search's
// other phrasings.
func (h *HTTPSearcher) SearchPhrasings(ctx context.Context, query string, queries []string, topK int) ([]string, error) {
	var resp searchResponse
	req := searchRequest{Query: query, Queries: queries, TopK: topK, KBName: h.KBName, Mode: h.Mode}
	if _, err := h.call(ctx, http.MethodPost, "/tools/rag_search", req, &resp, http.StatusOK); err != nil {
		return nil, err
	}
	texts := make([]string, len(resp.Results))
	for i, r := range resp.Results {
		texts[i] = r.Text
	}
	return texts, nil
}

// Indexed is the outcome of IndexDirectory.
type Indexed struct {
	JobID       string `json:"job_id"`
	Status      string `json:"status"`
	Chunks      int    `json:"chunks_indexed"`
	FilesTotal  int    `json:"files_total"`
	FilesFailed int    `json:"files_failed"`
}

// IndexDirectory indexes every supported file of dir (a path on ragd's
// machine, inside its ingest roots) into h.KBName through POST
// /tools/rag_index_directory with wait:true, and when ragd answers 202
// because its wait limit passed, polls the job until it ends. A failed job,
// or one with failed files, is an error.
func (h *HTTPSearcher) IndexDirectory(ctx context.Context, dir string) (Indexed, error) {
	body := map[string]any{"directory_path": dir, "kb_name": h.KBName, "wait": true}
	var idx Indexed
	status, err := h.call(ctx, http.MethodPost, "/tools/rag_index_directory", body, &idx, http.StatusOK, http.StatusAccepted)
	if err != nil {
		return Indexed{}, err
	}
	if status == http.StatusAccepted {
		if idx.JobID == "" {
			return Indexed{}, errors.New("eval: index: 202 without a job_id")
		}
		if idx, err = h.awaitJob(ctx, idx.JobID); err != nil {
			return Indexed{}, err
		}
	}
	if idx.FilesFailed > 0 {
		return idx, fmt.Errorf("eval: index: %d of %d files failed (job %s)", idx.FilesFailed, idx.FilesTotal, idx.JobID)
	}
	return idx, nil
}

// job is the part of GET /jobs/{id} that awaitJob reads.
type job struct {
	ID     string `json:"job_id"`
	Status string `json:"status"`
	Error  string `json:"error"`
	Result struct {
		FilesTotal  int `json:"files_total"`
		FilesFailed int `json:"files_failed"`
		Chunks      int `json:"chunks_indexed"`
	} `json:"result"`
}

func (h *HTTPSearcher) awaitJob(ctx context.Context, id string) (Indexed, error) {
	for {
		var j job
		if _, err := h.call(ctx, http.MethodGet, "/jobs/"+url.PathEscape(id), nil, &j, http.StatusOK); err != nil {
			return Indexed{}, err
		}
		switch j.Status {
		case "completed":
			return Indexed{JobID: j.ID, Status: j.Status, Chunks: j.Result.Chunks,
				FilesTotal: j.Result.FilesTotal, FilesFailed: j.Result.FilesFailed}, nil
		case "failed":
			return Indexed{}, fmt.Errorf("eval: index job %s failed: %s", id, j.Error)
		case "cancelled":
			return Indexed{}, fmt.Errorf("eval: index job %s was cancelled", id)
		}
		select {
		case <-ctx.Done():
			return Indexed{}, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// call sends in (JSON, unless nil) and decodes the answer into out when its
// status is one of want; any other status is an error carrying the start of
// the body.
func (h *HTTPSearcher) call(ctx context.Context, method, path string, in, out any, want ...int) (int, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return 0, err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(h.BaseURL, "/")+path, body)
	if err != nil {
		return 0, fmt.Errorf("eval: %w", err)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if h.Token != "" {
		req.Header.Set("Authorization", "Bearer "+h.Token)
	}
	client := h.Client
	if client == nil {
		client = defaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("eval: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return resp.StatusCode, fmt.Errorf("eval: %s %s: %w", method, path, err)
	}
	ok := false
	for _, code := range want {
		ok = ok || resp.StatusCode == code
	}
	if !ok {
		return resp.StatusCode, fmt.Errorf("eval: %s %s: %s: %s", method, path, resp.Status, truncate(Fold(string(data)), 300))
	}
	if err := json.Unmarshal(data, out); err != nil {
		return resp.StatusCode, fmt.Errorf("eval: %s %s: decoding the answer: %w", method, path, err)
	}
	return resp.StatusCode, nil
}

// Result is one search result with what the suite needs to judge and expand it.
type Result struct {
	ID         string `json:"id"`
	DocumentID string `json:"document_id"`
	Source     string `json:"source"`
	Text       string `json:"text"`
}

// SearchResults is Search with the results' ids and sources.
func (h *HTTPSearcher) SearchResults(ctx context.Context, query string, topK int) ([]Result, error) {
	var resp struct {
		Results []Result `json:"results"`
	}
	req := searchRequest{Query: query, TopK: topK, KBName: h.KBName, Mode: h.Mode}
	if _, err := h.call(ctx, http.MethodPost, "/tools/rag_search", req, &resp, http.StatusOK); err != nil {
		return nil, err
	}
	return resp.Results, nil
}
