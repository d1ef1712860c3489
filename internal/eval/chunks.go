package eval

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"ragd/internal/ingest"
)

// Chunk is a stored chunk as the namespace archive gives it.
type Chunk struct {
	ID         string `json:"id"`
	DocumentID string `json:"document_id"`
	Source     string `json:"source"`
	Index      int    `json:"chunk_index"`
	Text       string `json:"text"`
	Path       string `json:"path"`
	Tokens     int    `json:"-"`
}

// Chunks indexes a namespace's chunks by id and by document, in document
// order, for expanding a result to its neighbours or its section.
type Chunks struct {
	byID  map[string]Chunk
	byDoc map[string][]Chunk
}

// NewChunks indexes cs.
func NewChunks(cs []Chunk) *Chunks {
	c := &Chunks{byID: map[string]Chunk{}, byDoc: map[string][]Chunk{}}
	for _, ch := range cs {
		ch.Tokens = ingest.CountTokens(ch.Text)
		c.byID[ch.ID] = ch
		c.byDoc[ch.DocumentID] = append(c.byDoc[ch.DocumentID], ch)
	}
	for _, doc := range c.byDoc {
		slices.SortFunc(doc, func(a, b Chunk) int { return a.Index - b.Index })
	}
	return c
}

// Len is the number of chunks.
func (c *Chunks) Len() int { return len(c.byID) }

// All returns every chunk (no particular order).
func (c *Chunks) All() []Chunk {
	out := make([]Chunk, 0, len(c.byID))
	for _, ch := range c.byID {
		out = append(out, ch)
	}
	return out
}

// The ways a result is widened before it is returned.
const (
	ExpandNone       = "none"       // the matched chunk
	ExpandNeighbours = "neighbours" // the matched chunk with the one before and after it
	ExpandSection    = "section"    // every chunk of the matched chunk's section (same heading trail)
)

// Expansions are the expansion modes, in report order.
var Expansions = []string{ExpandNone, ExpandNeighbours, ExpandSection}

// Expand returns the chunks a result id stands for under mode, in
// document order; an unknown id stands for nothing.
func (c *Chunks) Expand(mode, id string) []Chunk {
	ch, ok := c.byID[id]
	if !ok {
		return nil
	}
	doc := c.byDoc[ch.DocumentID]
	i := slices.IndexFunc(doc, func(x Chunk) bool { return x.ID == id })
	switch mode {
	case ExpandNeighbours:
		return doc[max(i-1, 0):min(i+2, len(doc))]
	case ExpandSection:
		lo, hi := i, i+1
		for lo > 0 && doc[lo-1].Path == ch.Path {
			lo--
		}
		for hi < len(doc) && doc[hi].Path == ch.Path {
			hi++
		}
		return doc[lo:hi]
	}
	return doc[i : i+1]
}

// ExportChunks reads every chunk of h.KBName through GET
// /kb/{kb_name}/export (the namespace archive, docs/ARCHIVE.md).
func (h *HTTPSearcher) ExportChunks(ctx context.Context) ([]Chunk, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet,
		strings.TrimRight(h.BaseURL, "/")+"/kb/"+url.PathEscape(h.KBName)+"/export", nil)
	if err != nil {
		return nil, err
	}
	if h.Token != "" {
		req.Header.Set("Authorization", "Bearer "+h.Token)
	}
	client := h.Client
	if client == nil {
		client = defaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("eval: export: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("eval: export %s: %s", h.KBName, resp.Status)
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("eval: export: %w", err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	var out []Chunk
	for sc.Scan() {
		var rec struct {
			Type  string `json:"type"`
			Chunk *Chunk `json:"chunk"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return nil, fmt.Errorf("eval: export: %w", err)
		}
		if rec.Type == "chunk" && rec.Chunk != nil {
			out = append(out, *rec.Chunk)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("eval: export: %w", err)
	}
	return out, nil
}
