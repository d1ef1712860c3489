package search

import (
	"context"
	"strings"

	"ragd/wire"

	"golang.org/x/sync/errgroup"

	"ragd"
	"ragd/internal/authn"
	"ragd/internal/platform/telemetry"
)

// ScopeFilter is wire.ScopeFilter, the contract REST, MCP and the client share.
type ScopeFilter = wire.ScopeFilter

// RetrieveRequest is wire.RetrieveRequest, the contract REST, MCP and the client share.
type RetrieveRequest = wire.RetrieveRequest

// Result is wire.Result, the contract REST, MCP and the client share.
type Result = wire.Result

// Plan is a validated, normalised retrieval: also the cache key's arguments.
type Plan struct {
	Query       string   `json:"q"`
	Queries     []string `json:"qs,omitempty"` // other phrasings, deduplicated
	TopK        int      `json:"k"`
	Namespaces  []string `json:"ns"`
	DocumentIDs []string `json:"docs,omitempty"`
	NoDocuments bool     `json:"none,omitempty"` // scope and filter ids do not intersect
	Tags        []string `json:"tags,omitempty"`
	SourceTypes []string `json:"types,omitempty"`
	Mode        string   `json:"mode"`
	Alpha       float64  `json:"alpha"`
	MMR         bool     `json:"mmr"`
	MMRLambda   float64  `json:"lambda,omitempty"`
	// Retrieval's techniques, in the key so results of other settings
	// never answer.
	Retrieval Retrieval `json:"r"`
	// Rerank names the reranker and its candidate count ("" when off).
	Rerank string `json:"rr,omitempty"`
	// Access is the caller's ragd.Audience.StoreFilter, which the store
	// applies to every query of the plan: results cached for one audience
	// never answer another.
	Access []string `json:"aud,omitempty"`
}

// maxQueryLength bounds a query: longer ones are documents, not questions.
const maxQueryLength = 4000

// Plan validates a retrieval request into its plan: defaults applied,
// namespaces checked against the caller's rights, filters normalised.
func (s *Service) Plan(ctx context.Context, req RetrieveRequest) (Plan, error) {
	_, span := telemetry.Start(ctx, "search.plan")
	p, err := s.plan(ctx, req)
	endPlan(ctx, span, p, err)
	return p, err
}

// plan is Plan, in its span.
func (s *Service) plan(ctx context.Context, req RetrieveRequest) (Plan, error) {
	p := Plan{Query: strings.TrimSpace(req.Query), Alpha: s.Alpha, MMR: s.MMR, Retrieval: s.Retrieval,
		Access: ragd.AudienceIn(ctx).StoreFilter()}
	if p.Query == "" {
		return p, ragd.Invalid("query", "missing", "query is required")
	}
	if len(p.Query) > maxQueryLength {
		return p, ragd.Invalid("query", "value_error", "query is longer than %d characters", maxQueryLength)
	}
	var err error
	if p.Queries, err = alternatives(p.Query, req.Queries); err != nil {
		return p, err
	}
	if p.TopK, err = topKOf(req.TopK); err != nil {
		return p, err
	}
	p.Rerank = s.rerankKey()
	switch req.Mode {
	case "", string(ragd.ModeHybrid):
		p.Mode = string(ragd.ModeHybrid)
	case string(ragd.ModeVector), string(ragd.ModeKeyword):
		p.Mode = req.Mode
	default:
		return p, ragd.Invalid("mode", "value_error", "mode must be hybrid, vector or keyword, not %q", req.Mode)
	}
	if p.Mode == string(ragd.ModeKeyword) && p.Retrieval.KeywordSynonymExpansion {
		p.Retrieval.SynonymExpansion = true
	}
	if p.MMR {
		p.MMRLambda = s.MMRLambda
	}
	f := ScopeFilter{}
	if req.ScopeFilter != nil {
		f = *req.ScopeFilter
	}
	if err := checkLists(req, f); err != nil {
		return p, err
	}
	namespaces := f.KBNames
	if req.KBName != "" || len(namespaces) == 0 {
		ns, err := ragd.ResolveNamespace(req.KBName)
		if err != nil {
			return p, err
		}
		namespaces = append([]string{ns}, namespaces...)
	}
	for _, ns := range namespaces {
		if !ragd.ValidNamespace(ns) {
			return p, &ragd.Error{Kind: ragd.KindInvalid, Message: "invalid namespace", Fields: []ragd.FieldError{{
				Loc: []string{"body", "scope_filter", "kb_names"}, Type: "value_error",
				Msg: "kb_names: " + ns + " is not a valid namespace: " + ragd.NamespaceRule}}}
		}
	}
	p.Namespaces = sortedSet(namespaces)
	for _, ns := range p.Namespaces {
		if err := authn.CheckNamespace(ctx, ns); err != nil {
			return p, err
		}
	}
	for _, t := range f.SourceTypes {
		if !ragd.SourceType(t).Valid() {
			return p, &ragd.Error{Kind: ragd.KindInvalid, Message: "invalid source type", Fields: []ragd.FieldError{{
				Loc: []string{"body", "scope_filter", "source_types"}, Type: "value_error",
				Msg: "source_types: " + t + " is not one of " + sourceTypeList()}}}
		}
	}
	p.SourceTypes = sortedSet(f.SourceTypes)
	p.Tags = sortedSet(f.Tags)
	switch scope, ids := sortedSet(req.Scope), sortedSet(f.DocumentIDs); {
	case len(scope) > 0 && len(ids) > 0:
		p.DocumentIDs = intersect(scope, ids)
		p.NoDocuments = len(p.DocumentIDs) == 0
	case len(scope) > 0:
		p.DocumentIDs = scope
	default:
		p.DocumentIDs = ids
	}
	return p, nil
}

// Retrieve runs a plan: one search per phrasing (the query and its
// alternatives) and namespace, concurrently, merged by reciprocal rank
// fusion when there are several lists, reordered by the reranker when one
// is configured, then diversified by MMR when configured. withVectors keeps
// the hits' vectors (answers use them to judge relevance). queryVector is
// the query's; alternatives are embedded here.
func (s *Service) Retrieve(ctx context.Context, p Plan, queryVector []float32, withVectors bool) (found []ragd.Hit, err error) {
	ctx, span := telemetry.Start(ctx, "search.retrieve")
	defer func() { endRetrieve(span, found, err) }()
	if p.NoDocuments {
		return nil, nil
	}
	pool := max(p.TopK, s.rerankPool(p.TopK))
	if p.MMR {
		pool = max(pool, min(p.TopK*4, 100))
	}
	q := ragd.ChunkQuery{Text: p.Query, Vector: queryVector, Mode: ragd.SearchMode(p.Mode), Alpha: p.Alpha, Limit: pool,
		DocumentIDs: p.DocumentIDs, Tags: p.Tags, SourceTypes: p.SourceTypes, WithVectors: withVectors || p.MMR,
		RankedFusion: p.Retrieval.RankedFusion, PathBoost: p.Retrieval.PathBoost}
	lists, err := s.phrasingsHits(ctx, p, q)
	if err != nil {
		return nil, err
	}
	hits := lists[0]
	if len(lists) > 1 {
		hits = fuseRRF(lists, s.RRFK)
	}
	if s.Reranker != nil {
		if hits, err = s.rerank(ctx, p.Query, hits[:min(len(hits), s.rerankPool(p.TopK))]); err != nil {
			return nil, err
		}
	}
	if p.MMR {
		hits = mmr(hits, p.TopK, p.MMRLambda)
	}
	return hits[:min(len(hits), p.TopK)], nil
}

// namespacesHits searches each namespace, concurrently when there are
// several: one, the common case, needs no goroutine.
func (s *Service) namespacesHits(ctx context.Context, namespaces []string, q ragd.ChunkQuery, r Retrieval) ([][]ragd.Hit, error) {
	lists := make([][]ragd.Hit, len(namespaces))
	if len(namespaces) == 1 {
		hits, err := s.namespaceHits(ctx, namespaces[0], q, r)
		lists[0] = hits
		return lists, err
	}
	g, gctx := errgroup.WithContext(ctx)
	for i, ns := range namespaces {
		g.Go(func() error {
			hits, err := s.namespaceHits(gctx, ns, q, r)
			lists[i] = hits
			return err
		})
	}
	return lists, g.Wait()
}

// namespaceHits searches one namespace. When the search has a keyword side,
// the query's BM25 text is expanded with words of that namespace's
// vocabulary (stems, embedding neighbours, WordNet synonyms, a chat model's hypothetical
// answer) and, with pseudo-relevance feedback, searched a second time with
// the distinctive words of the first results added. With related words
// searched, a BM25 search over the words WordNet related to each chunk at
// ingest runs alongside and adds to the scores. The vector side always
// embeds the query as the user wrote it.
func (s *Service) namespaceHits(ctx context.Context, ns string, q ragd.ChunkQuery, r Retrieval) ([]ragd.Hit, error) {
	if q.Mode == ragd.ModeVector || !(r.expands() || r.Rewrite || r.RelatedWeight > 0) {
		return s.currentHits(ctx, ns, q)
	}
	query := q.Text
	e := newExpansion(query)
	if r.Rewrite {
		s.expandRewrite(ctx, e, query)
	}
	v := s.vocabulary(ctx, ns)
	if v != nil && r.StemExpansion {
		expandStems(e, query, v.stats)
	}
	if v != nil && r.NeighbourExpansion {
		s.expandNeighbours(e, query, v, r)
	}
	if v != nil && r.SynonymExpansion && s.Thesaurus != nil {
		expandSynonyms(e, query, v.stats, s.Thesaurus, r)
	}
	q.Text = e.text(query)
	main := func(ctx context.Context) ([]ragd.Hit, error) {
		if v == nil || !r.PRF {
			return s.currentHits(ctx, ns, q)
		}
		return s.feedbackSearch(ctx, ns, q, e, query, v.stats, r)
	}
	if r.RelatedWeight <= 0 {
		return main(ctx)
	}
	return s.withRelated(ctx, ns, q, r.RelatedWeight, main)
}

// Diverse is p re-ranked for diversity by maximal marginal relevance with
// the configured lambda, whether or not MMR is on for searches.
func (s *Service) Diverse(p Plan) Plan {
	p.MMR, p.MMRLambda = true, s.MMRLambda
	return p
}

// ToResult is a hit as rag_search returns it.
func ToResult(h ragd.Hit) Result {
	r := Result{ID: h.ID, Text: h.Text, Score: h.Score, DocumentID: h.DocumentID, Source: h.Source,
		SourceType: h.SourceType, Path: h.Path, Level: h.Level, Summary: h.Summary, Page: h.Page, OCR: h.OCR, KBName: h.Namespace}
	if !h.Timestamp.IsZero() {
		r.Timestamp = h.Timestamp.UTC().Format("2006-01-02T15:04:05.000Z07:00")
	}
	return r
}

// CheckRetrieve validates a retrieval request without running it.
func (s *Service) CheckRetrieve(ctx context.Context, req RetrieveRequest) error {
	_, err := s.Plan(ctx, req)
	return err
}

// sourceTypeList is ragd.SourceTypes as a message lists them.
func sourceTypeList() string {
	names := make([]string, len(ragd.SourceTypes))
	for i, t := range ragd.SourceTypes {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}
