package search

import (
	"context"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"

	"ragd"
)

// MaxQueries bounds a request's alternative phrasings (queries): each is
// one more search per namespace.
const MaxQueries = 5

// phrasingsInFlight bounds the phrasings of one request searched at once,
// so a request with many does not take every connection to the store.
const phrasingsInFlight = 3

// alternatives validates the caller's other phrasings of query: at most
// MaxQueries, none blank or longer than a query may be. Repeats (of query
// or of each other, ignoring case and spacing) are dropped: searching the
// same words twice would only double their weight in the fusion.
func alternatives(query string, queries []string) ([]string, error) {
	if len(queries) > MaxQueries {
		return nil, ragd.Invalid("queries", "value_error", "queries holds %d phrasings; at most %d are searched", len(queries), MaxQueries)
	}
	seen := map[string]bool{phrasingKey(query): true}
	var out []string
	for i, q := range queries {
		q = strings.TrimSpace(q)
		loc := []string{"body", "queries", strconv.Itoa(i)}
		switch {
		case q == "":
			return nil, invalidAt(loc, "missing", "queries[%d] is empty: give each phrasing some words, or leave it out", i)
		case len(q) > maxQueryLength:
			return nil, invalidAt(loc, "value_error", "queries[%d] is longer than %d characters", i, maxQueryLength)
		case seen[phrasingKey(q)]:
			continue
		}
		seen[phrasingKey(q)] = true
		out = append(out, q)
	}
	return out, nil
}

// phrasingKey is q folded for comparing phrasings: lower case, single spaces.
func phrasingKey(q string) string { return strings.ToLower(strings.Join(strings.Fields(q), " ")) }

func invalidAt(loc []string, typ, format string, args ...any) *ragd.Error {
	e := ragd.Invalid(loc[1], typ, format, args...)
	e.Fields[0].Loc = loc
	return e
}

// phrasingsHits searches each phrasing of the plan in every namespace,
// a few phrasings at a time, and returns every ranked list: the query's
// (searched with queryVector) first. Each alternative is embedded on its
// own, unless the search is keyword-only.
func (s *Service) phrasingsHits(ctx context.Context, p Plan, q ragd.ChunkQuery) ([][]ragd.Hit, error) {
	if len(p.Queries) == 0 {
		return s.namespacesHits(ctx, p.Namespaces, q, p.Retrieval)
	}
	phrasings := append([]string{p.Query}, p.Queries...)
	lists := make([][][]ragd.Hit, len(phrasings))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(phrasingsInFlight)
	for i, text := range phrasings {
		g.Go(func() error {
			pq := q
			pq.Text = text
			if i > 0 && p.Mode != string(ragd.ModeKeyword) {
				v, err := s.EmbedQuery(gctx, text)
				if err != nil {
					return err
				}
				pq.Vector = v
			}
			hits, err := s.namespacesHits(gctx, p.Namespaces, pq, p.Retrieval)
			lists[i] = hits
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	var all [][]ragd.Hit
	for _, l := range lists {
		all = append(all, l...)
	}
	return all, nil
}
