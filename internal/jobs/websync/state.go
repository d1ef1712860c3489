package websync

import (
	"context"
	"encoding/json"

	"ragd/internal/ingest/crawl"
)

// saved is what a sync keeps of a source for the next one, under
// keyspace.Keys.SourceState: the crawl's state of each page, by page URL.
type saved struct {
	Pages map[string]crawl.State `json:"pages"`
}

// loadState is what the last sync kept of the source id; empty before
// the first, or when what was kept cannot be read (the next crawl then
// fetches every page in full, which deletes nothing it would not).
func (s *Syncer) loadState(ctx context.Context, id string) (map[string]crawl.State, error) {
	b, ok, err := s.KV.Get(ctx, s.Keys.SourceState(id))
	if err != nil || !ok {
		return map[string]crawl.State{}, err
	}
	var v saved
	if json.Unmarshal(b, &v) != nil || v.Pages == nil {
		return map[string]crawl.State{}, nil
	}
	return v.Pages, nil
}

// saveState keeps pages as the source's state.
func (s *Syncer) saveState(ctx context.Context, id string, pages map[string]crawl.State) error {
	if pages == nil {
		pages = map[string]crawl.State{}
	}
	b, err := json.Marshal(saved{Pages: pages})
	if err != nil {
		return err
	}
	return s.KV.Set(ctx, s.Keys.SourceState(id), b, 0)
}
