// Package websync plans and stages the sync of a web source: the source's
// checks (kind.go: an http(s) start URL, bounds within the server's caps,
// no other kind's fields), the plan (plan.go) — a crawl of the site
// (package crawl) through the ingest fetcher, conditional on what the
// last sync kept of each page that still has its document, each new or
// changed page's body staged as upload bytes as the crawl reads it, and
// the documents of pages the crawl may take as gone deleted; a crawl that
// fails plans nothing — each staged page handed to the pipeline with its
// citation, the page URL (stage.go), and what a sync keeps for the next
// one (state.go: one JSON value under the source's state key). Syncer is
// the web sourcesync.Kind.
package websync

import (
	"context"
	"time"

	"ragd"
	"ragd/internal/catalog/registry"
	"ragd/internal/ingest/guard"
	"ragd/internal/jobs/sourcesync"
	"ragd/internal/platform/keyspace"
	"ragd/internal/platform/kv"
)

var _ sourcesync.Kind = (*Syncer)(nil)

// Limits are the server's bounds of a crawl (sources.web_*): MaxPages
// and MaxDepth are also the caps a source's own may lower, not raise.
type Limits struct {
	MaxPages     int
	MaxDepth     int
	MaxPageBytes int64 // also bounded by ingest.max_file_bytes
	MaxTime      time.Duration
	Concurrency  int
	Delay        time.Duration // 0: none
}

// Syncer plans web sources' syncs.
type Syncer struct {
	UploadsDir string         // <data.dir>/uploads: staged pages
	Fetcher    *guard.Fetcher // every request and redirect (ingest.allow_private_urls)
	Registry   *registry.Registry
	KV         *kv.Store
	Keys       keyspace.Keys
	Limits     Limits
	// MaxFileBytes is ingest.max_file_bytes: a page the pipeline could
	// not read is failed by the crawl instead.
	MaxFileBytes int64
}

// Documents is the source's documents that ctx's audience sees: those
// whose source URI is under the start URL's prefix.
func (s *Syncer) Documents(ctx context.Context, src ragd.Source) ([]registry.SourceRef, error) {
	return sourcesync.Documents(ctx, s.Registry, src, ragd.SourceItemPrefix(ragd.SourceWeb, src.URL))
}

// LocalPath is "": a web source reads no local path.
func (s *Syncer) LocalPath(ragd.Source) string { return "" }

// Synced keeps the crawl's state of each page for the next sync's
// conditional requests.
func (s *Syncer) Synced(ctx context.Context, p *sourcesync.Plan) error {
	return s.saveState(ctx, p.Src.ID, stateOf(p).next)
}

// Forget drops the state kept of a deleted source.
func (s *Syncer) Forget(ctx context.Context, src ragd.Source) error {
	return s.KV.Delete(ctx, s.Keys.SourceState(src.ID))
}
