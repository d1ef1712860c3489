package search

import (
	"context"
	"sort"

	"ragd"

	"golang.org/x/sync/errgroup"
)

// withRelated runs a namespace's search (main) and, alongside it, a BM25
// search of the words a thesaurus related to each chunk at ingest
// (ragd.Chunk.Related), and adds the second's scores at weight to the
// first's. A chunk that says "priority" is found by a question about
// "precedence" through its related words, while a chunk matching the
// question's own words keeps the lead: its related words are a guess.
//
// Two searches rather than one BM25 over both properties: Weaviate's BM25F
// accepts only integer property boosts and shares one length normalisation
// across the properties searched, so a long list of related words in the
// same query would reorder plain matches too.
func (s *Service) withRelated(ctx context.Context, ns string, q ragd.ChunkQuery, weight float64,
	main func(context.Context) ([]ragd.Hit, error)) ([]ragd.Hit, error) {
	var hits, related []ragd.Hit
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		hits, err = main(gctx)
		return err
	})
	g.Go(func() (err error) {
		rq := q
		rq.Mode, rq.Related, rq.Vector = ragd.ModeKeyword, true, nil
		related, err = s.currentHits(gctx, ns, rq)
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return fuseWeighted(hits, related, weight, q.Limit), nil
}

// fuseWeighted scores each hit as its score in primary plus weight times
// its score in secondary, each list's scores scaled so its best is 1, and
// returns the best limit. Hits keep primary's data when in both. Without
// secondary hits primary is returned as it came (cut to limit).
func fuseWeighted(primary, secondary []ragd.Hit, weight float64, limit int) []ragd.Hit {
	if len(secondary) == 0 {
		return primary[:min(len(primary), limit)]
	}
	byID := map[string]int{}
	out := make([]ragd.Hit, 0, len(primary)+len(secondary))
	top := maxScore(primary)
	for _, h := range primary {
		h.Score = scaled(h.Score, top)
		byID[h.ID] = len(out)
		out = append(out, h)
	}
	top = maxScore(secondary)
	for _, h := range secondary {
		add := weight * scaled(h.Score, top)
		if i, ok := byID[h.ID]; ok {
			out[i].Score += add
			continue
		}
		h.Score = add
		byID[h.ID] = len(out)
		out = append(out, h)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	return out[:min(len(out), limit)]
}

func maxScore(hits []ragd.Hit) float64 {
	top := 0.0
	for _, h := range hits {
		top = max(top, h.Score)
	}
	return top
}

func scaled(score, top float64) float64 {
	if top <= 0 {
		return 0
	}
	return score / top
}
