package search

import (
	"context"
	"sort"

	"ragd"

	"ragd/internal/catalog/vocab"
)

// feedbackSearch runs q (already expanded by e), adds the distinctive words
// of its first results to the expansion and searches again, fusing both
// result lists by reciprocal rank: the first search keeps its say, so a
// feedback word that pulled the wrong way cannot bury a good first hit.
// Both searches run in namespace ns only.
func (s *Service) feedbackSearch(ctx context.Context, ns string, q ragd.ChunkQuery, e *expansion, query string,
	stats *vocab.Stats, r Retrieval) ([]ragd.Hit, error) {
	first := q
	first.Limit = max(q.Limit, r.PRFDocs)
	hits, err := s.currentHits(ctx, ns, first)
	if err != nil || len(hits) == 0 {
		return hits, err
	}
	// Together the feedback words weigh prfWeight per query word (Rocchio:
	// the centroid of the feedback, scaled to the query).
	scale := prfWeight * float64(len(queryWords(query)))
	for _, t := range feedbackTerms(hits, r.PRFDocs, r.PRFTerms, stats, e.query) {
		e.add(t.word, t.weight*scale)
	}
	q.Text = e.text(query)
	second, err := s.currentHits(ctx, ns, q)
	if err != nil {
		return nil, err
	}
	fused := fuseRRF([][]ragd.Hit{hits, second}, s.RRFK)
	return fused[:min(len(fused), q.Limit)], nil
}

// feedbackTerms picks the n most distinctive words of the first docs hits
// (pseudo-relevance feedback): a word scores its frequency in each hit,
// relative to the hit's length, times its rarity in the namespace. The hits
// come from one namespace's search and the statistics are that namespace's,
// so the second search, run in the same namespace, can never draw chunks
// from another. The weights sum to 1.
func feedbackTerms(hits []ragd.Hit, docs, n int, stats *vocab.Stats, query map[string]bool) []term {
	score := map[string]float64{}
	for _, h := range hits[:min(docs, len(hits))] {
		words := vocab.Terms(h.Path + "\n" + h.Text)
		if len(words) == 0 {
			continue
		}
		for _, w := range words {
			// Words the statistics lack (a document indexed since they were
			// loaded) have no reliable rarity: left out.
			if len(w) > 2 && !vocab.IsStopword(w) && !query[w] && !vocab.IsNumber(w) && stats.Has(w) {
				score[w] += stats.IDF(w) / float64(len(words))
			}
		}
	}
	out := make([]term, 0, len(score))
	for w, s := range score {
		out = append(out, term{w, s})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].weight != out[j].weight {
			return out[i].weight > out[j].weight
		}
		return out[i].word < out[j].word
	})
	out = out[:min(len(out), n)]
	// Weights sum to 1, so the words together weigh like one query word
	// whatever n is (Rocchio's centroid); the caller scales them.
	total := 0.0
	for _, t := range out {
		total += t.weight
	}
	for i := range out {
		out[i].weight /= total
	}
	return out
}
