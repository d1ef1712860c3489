package memstore

import (
	"cmp"
	"context"
	"math"
	"slices"

	"ragd"
)

// Search runs q over the namespace's chunks: BM25 over the body and the
// heading trail (boosted by PathBoost) or over the related words, cosine
// similarity of vectors, or both fused as Weaviate fuses them.
func (s *Store) Search(ctx context.Context, namespace string, q ragd.ChunkQuery) ([]ragd.Hit, error) {
	if q.Related {
		q.Mode = ragd.ModeKeyword
	}
	access := ragd.AudienceIn(ctx).StoreFilter()
	s.mu.RLock()
	var pool []ragd.Chunk
	for _, c := range s.chunks[namespace] {
		if matches(&c, q, access) {
			pool = append(pool, c)
		}
	}
	s.mu.RUnlock()
	slices.SortFunc(pool, func(a, b ragd.Chunk) int { return cmp.Compare(a.ID, b.ID) })

	fields := func(c ragd.Chunk) []field {
		if q.Related {
			return []field{{c.Related, 1}}
		}
		return []field{{c.Text, 1}, {c.Path, boost(q.PathBoost)}}
	}
	vector := func(c ragd.Chunk) []float32 { return c.Vector }
	scores := rank(pool, q, fields, vector, q.RankedFusion)
	hits := make([]ragd.Hit, 0, len(scores))
	for _, sc := range scores[:min(q.Limit, len(scores))] {
		h := ragd.Hit{Chunk: read(pool[sc.i]), Score: sc.score}
		if q.WithVectors {
			h.Vector = slices.Clone(pool[sc.i].Vector)
		}
		hits = append(hits, h)
	}
	return hits, nil
}

// SearchImages finds pictures by caption (weighted double) and nearby
// text, hybrid, within q's document filter.
func (s *Store) SearchImages(ctx context.Context, namespace string, q ragd.ChunkQuery) ([]ragd.ImageHit, error) {
	s.mu.RLock()
	var pool []ragd.Image
	for _, im := range s.images[namespace] {
		if (len(q.DocumentIDs) == 0 || slices.Contains(q.DocumentIDs, im.DocumentID)) && visible(im.Access, ragd.AudienceIn(ctx).StoreFilter()) {
			pool = append(pool, im)
		}
	}
	s.mu.RUnlock()
	slices.SortFunc(pool, func(a, b ragd.Image) int { return cmp.Compare(a.ID, b.ID) })
	q.Mode = ragd.ModeHybrid
	fields := func(im ragd.Image) []field { return []field{{im.Caption, 2}, {im.Nearby, 1}} }
	vector := func(im ragd.Image) []float32 { return im.Vector }
	scores := rank(pool, q, fields, vector, false)
	hits := make([]ragd.ImageHit, 0, len(scores))
	for _, sc := range scores[:min(q.Limit, len(scores))] {
		im := pool[sc.i]
		im.Vector = nil
		hits = append(hits, ragd.ImageHit{Image: im, Score: sc.score})
	}
	return hits, nil
}

// matches applies q's filters: any of the listed documents, tags and
// source types (each list that is set).
func matches(c *ragd.Chunk, q ragd.ChunkQuery, access []string) bool {
	anyOf := func(want []string, have ...string) bool {
		if len(want) == 0 {
			return true
		}
		for _, h := range have {
			if slices.Contains(want, h) {
				return true
			}
		}
		return false
	}
	return anyOf(q.DocumentIDs, c.DocumentID) && anyOf(q.Tags, c.Tags...) && anyOf(q.SourceTypes, string(c.SourceType)) &&
		visible(c.Access, access)
}

// visible applies an access filter (ragd.Audience.StoreFilter) to a
// document's access, as the store's filter on ragd.StoredAccess does.
func visible(access, filter []string) bool {
	if filter == nil {
		return true
	}
	for _, g := range ragd.StoredAccess(access) {
		if g == ragd.EveryGroup || slices.Contains(filter, g) {
			return true
		}
	}
	return false
}

func boost(b float64) float64 {
	if b <= 0 {
		return 1
	}
	return b
}

// scored is one pool entry's final score.
type scored struct {
	i     int
	score float64
}

// rank scores the pool for q's mode and returns the entries that match,
// best first (ties by pool order, which is id order).
func rank[T any](pool []T, q ragd.ChunkQuery, fields func(T) []field, vector func(T) []float32, ranked bool) []scored {
	var keyword, semantic []float64
	if q.Mode != ragd.ModeVector {
		docs := make([][]field, len(pool))
		for i, x := range pool {
			docs[i] = fields(x)
		}
		keyword = bm25(docs, tokens(q.Text))
	}
	if q.Mode != ragd.ModeKeyword {
		semantic = make([]float64, len(pool))
		for i, x := range pool {
			semantic[i] = ragd.Cosine(q.Vector, vector(x))
		}
	}
	var out []scored
	switch q.Mode {
	case ragd.ModeKeyword:
		out = positive(keyword)
	case ragd.ModeVector:
		out = all(semantic)
	default:
		out = fuse(positive(keyword), all(semantic), q.Alpha, ranked)
	}
	slices.SortStableFunc(out, func(a, b scored) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	})
	return out
}

func positive(scores []float64) []scored {
	var out []scored
	for i, s := range scores {
		if s > 0 {
			out = append(out, scored{i, s})
		}
	}
	return out
}

func all(scores []float64) []scored {
	out := make([]scored, len(scores))
	for i, s := range scores {
		out[i] = scored{i, s}
	}
	return out
}

// fuse combines the keyword and vector results: by min-max normalised score
// (Weaviate's relativeScore fusion) or by rank (rankedFusion, 1/(60+rank)),
// the vector side weighted alpha.
func fuse(keyword, semantic []scored, alpha float64, ranked bool) []scored {
	total := map[int]float64{}
	add := func(list []scored, weight float64) {
		sorted := slices.Clone(list)
		slices.SortStableFunc(sorted, func(a, b scored) int { return cmp.Compare(b.score, a.score) })
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, s := range sorted {
			lo, hi = math.Min(lo, s.score), math.Max(hi, s.score)
		}
		for r, s := range sorted {
			v := 1.0
			switch {
			case ranked:
				v = 1 / float64(60+r)
			case hi > lo:
				v = (s.score - lo) / (hi - lo)
			}
			total[s.i] += weight * v
		}
	}
	add(keyword, 1-alpha)
	add(semantic, alpha)
	out := make([]scored, 0, len(total))
	for i, s := range total {
		out = append(out, scored{i, s})
	}
	return out
}
