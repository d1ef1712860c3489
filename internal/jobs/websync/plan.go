package websync

import (
	"bytes"
	"context"
	"slices"

	"ragd"
	"ragd/internal/ingest/crawl"
	"ragd/internal/jobs/sourcesync"
)

// staged is a page's body kept as upload bytes, with its type.
type staged struct {
	upload string
	typ    ragd.SourceType
}

// planState is a web plan's own: the pages staged during the crawl and
// the state the next sync starts from.
type planState struct {
	staged map[string]staged
	next   map[string]crawl.State
}

func stateOf(p *sourcesync.Plan) planState { st, _ := p.State.(planState); return st }

// Plan crawls the source's site and plans its sync: pages without a
// document are added, pages read in full that have one changed (the
// pipeline does not embed an unchanged content again), pages answered
// 304 or hashing as before unchanged, and the documents of pages the
// crawl may take as gone (crawl.Result.MayDelete) deleted. A crawl that
// fails — the start page unreachable or answering an error, a bound
// exceeded, a refused address — fails the plan, deleting nothing; so,
// unless force, does a plan deleting more than half of the source's
// documents. Force also fetches every page in full (Full).
func (s *Syncer) Plan(ctx context.Context, src ragd.Source, force bool) (*sourcesync.Plan, error) {
	if err := s.Check(ctx, src); err != nil {
		return nil, err
	}
	refs, err := s.Documents(ctx, src)
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for _, r := range refs {
		if page, ok := ragd.SourceItem(ragd.SourceWeb, r.Source); ok {
			have[page] = true
		}
	}
	prev, err := s.previous(ctx, src, have, force)
	if err != nil {
		return nil, err
	}
	st := planState{staged: map[string]staged{}, next: map[string]crawl.State{}}
	p := sourcesync.NewPlan(src, st)
	p.Full = len(prev) == 0
	res, err := crawl.Crawl(ctx, s.Fetcher, s.options(src, prev), func(pg crawl.Page) error {
		return s.visit(p, st, have, pg)
	})
	if err != nil {
		return nil, err
	}
	for page, why := range res.Failed {
		if p.Failed == nil {
			p.Failed = map[string]string{}
		}
		p.Failed[page] = why
		if old, ok := prev[page]; ok {
			st.next[page] = old // still conditional next time: its document stands
		}
	}
	for _, r := range refs {
		if page, ok := ragd.SourceItem(ragd.SourceWeb, r.Source); ok && res.MayDelete(page) {
			p.Deleted = append(p.Deleted, r)
		}
	}
	slices.Sort(p.Added)
	slices.Sort(p.Changed)
	return p, sourcesync.GuardDeletes(p, len(refs), force)
}

// previous is the state the last sync kept of the pages that still have
// a document (a page whose document job failed is fetched in full
// again); none with force.
func (s *Syncer) previous(ctx context.Context, src ragd.Source, have map[string]bool, force bool) (map[string]crawl.State, error) {
	if force {
		return map[string]crawl.State{}, nil
	}
	prev, err := s.loadState(ctx, src.ID)
	if err != nil {
		return nil, err
	}
	for page := range prev {
		if !have[page] {
			delete(prev, page)
		}
	}
	return prev, nil
}

// visit takes one page the crawl handed over into the plan, staging its
// body when it is new or changed.
func (s *Syncer) visit(p *sourcesync.Plan, st planState, have map[string]bool, pg crawl.Page) error {
	st.next[pg.URL] = pg.State
	if pg.Unchanged {
		p.Unchanged++
		return nil
	}
	hash, err := sourcesync.Keep(s.UploadsDir, bytes.NewReader(pg.Body))
	if err != nil {
		return err
	}
	st.staged[pg.URL] = staged{upload: hash, typ: pg.Type}
	if have[pg.URL] {
		p.Changed = append(p.Changed, pg.URL)
	} else {
		p.Added = append(p.Added, pg.URL)
	}
	return nil
}

// options are the crawl's: the server's limits, lowered by the source's
// own max_pages and max_depth, a page bounded by ingest.max_file_bytes
// too.
func (s *Syncer) options(src ragd.Source, prev map[string]crawl.State) crawl.Options {
	l := s.Limits
	o := crawl.Options{Start: src.URL, MaxPages: l.MaxPages, MaxDepth: l.MaxDepth, MaxPageBytes: l.MaxPageBytes,
		MaxTime: l.MaxTime, Concurrency: l.Concurrency, Delay: l.Delay, Previous: prev}
	if src.MaxPages > 0 && (o.MaxPages <= 0 || src.MaxPages < o.MaxPages) {
		o.MaxPages = src.MaxPages
	}
	if src.MaxDepth > 0 && (o.MaxDepth <= 0 || src.MaxDepth < o.MaxDepth) {
		o.MaxDepth = src.MaxDepth
	}
	if s.MaxFileBytes > 0 && (o.MaxPageBytes <= 0 || s.MaxFileBytes < o.MaxPageBytes) {
		o.MaxPageBytes = s.MaxFileBytes
	}
	if l.Delay <= 0 {
		o.Delay = -1 // none
	}
	return o
}
