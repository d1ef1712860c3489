package search

import (
	"math"
	"slices"
	"testing"

	"ragd"
)

func scoredHit(id string, score float64, text string) ragd.Hit {
	var h ragd.Hit
	h.ID, h.Score, h.Text = id, score, text
	return h
}

func hitIDs(hits []ragd.Hit) []string {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// Each list is scaled so its best scores 1, the secondary's scaled score
// is added at weight, a hit found only by the secondary joins at that
// weight, a hit in both keeps the primary's data, and the result is
// sorted best first.
func TestFuseWeighted(t *testing.T) {
	primary := []ragd.Hit{scoredHit("a", 8, "a"), scoredHit("b", 4, "b from the body search")}
	// The secondary's raw scores are far larger than the primary's:
	// scaling keeps them from swamping it.
	secondary := []ragd.Hit{scoredHit("b", 200, "b from the related search"), scoredHit("c", 400, "c")}
	got := fuseWeighted(primary, secondary, 0.5, 10)
	want := []struct {
		id    string
		score float64
	}{
		{"a", 1},               // 8/8
		{"b", 0.5 + 0.5*0.5},   // 4/8 + 0.5 × 200/400
		{"c", 0.5 * 400 / 400}, // only in the secondary: its weight alone
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %d hits", hitIDs(got), len(want))
	}
	for i, w := range want {
		if got[i].ID != w.id || !near(got[i].Score, w.score) {
			t.Errorf("hit %d = %s %.3f, want %s %.3f", i, got[i].ID, got[i].Score, w.id, w.score)
		}
	}
	if got[1].Text != "b from the body search" {
		t.Errorf("b's text %q: a hit in both lists must keep the primary's data", got[1].Text)
	}
	if primary[0].Score != 8 || secondary[0].Score != 200 {
		t.Error("fuseWeighted changed its inputs' scores")
	}
}

// The secondary's score can lift a hit over one the primary ranked
// higher: the output is sorted by the fused score, not the primary order.
func TestFuseWeightedReorders(t *testing.T) {
	primary := []ragd.Hit{scoredHit("a", 10, ""), scoredHit("b", 9, "")}
	secondary := []ragd.Hit{scoredHit("b", 3, "")}
	got := fuseWeighted(primary, secondary, 0.5, 10)
	if !slices.Equal(hitIDs(got), []string{"b", "a"}) || !near(got[0].Score, 1.4) {
		t.Errorf("got %v (%.2f first), want b (0.9 + 0.5) before a (1)", hitIDs(got), got[0].Score)
	}
}

// Only the best limit hits are returned, cut after sorting so a
// secondary-only hit can displace a weak primary one.
func TestFuseWeightedLimit(t *testing.T) {
	primary := []ragd.Hit{scoredHit("a", 10, ""), scoredHit("b", 1, "")}
	secondary := []ragd.Hit{scoredHit("c", 5, "")}
	got := fuseWeighted(primary, secondary, 0.5, 2)
	if !slices.Equal(hitIDs(got), []string{"a", "c"}) {
		t.Errorf("got %v, want [a c]: b (0.1) is below c (0.5)", hitIDs(got))
	}
}

// Without secondary hits the primary comes back as it was, cut to limit.
func TestFuseWeightedEmptySecondary(t *testing.T) {
	primary := []ragd.Hit{scoredHit("a", 3, ""), scoredHit("b", 2, ""), scoredHit("c", 1, "")}
	for _, secondary := range [][]ragd.Hit{nil, {}} {
		got := fuseWeighted(primary, secondary, 0.5, 2)
		if !slices.Equal(hitIDs(got), []string{"a", "b"}) || got[0].Score != 3 || got[1].Score != 2 {
			t.Errorf("got %+v, want a (3) and b (2) unchanged", got)
		}
	}
	if got := fuseWeighted(nil, nil, 0.5, 5); len(got) != 0 {
		t.Errorf("nothing fused from nothing: %+v", got)
	}
}

// Without primary hits the secondary's alone rank, at weight: a question
// answered only by related words still finds its chunks.
func TestFuseWeightedEmptyPrimary(t *testing.T) {
	got := fuseWeighted(nil, []ragd.Hit{scoredHit("x", 2, ""), scoredHit("y", 4, "")}, 0.5, 5)
	if !slices.Equal(hitIDs(got), []string{"y", "x"}) || !near(got[0].Score, 0.5) || !near(got[1].Score, 0.25) {
		t.Errorf("got %+v, want y (0.5) then x (0.25)", got)
	}
}

// Lists whose scores are all zero (BM25 can score 0) are not divided by
// their best: every fused score is a number.
func TestFuseWeightedZeroScores(t *testing.T) {
	primary := []ragd.Hit{scoredHit("a", 0, ""), scoredHit("b", 0, "")}
	secondary := []ragd.Hit{scoredHit("b", 0, ""), scoredHit("c", 0, "")}
	got := fuseWeighted(primary, secondary, 0.5, 10)
	if len(got) != 3 {
		t.Fatalf("got %v, want a, b and c", hitIDs(got))
	}
	for _, h := range got {
		if math.IsNaN(h.Score) || math.IsInf(h.Score, 0) || h.Score != 0 {
			t.Errorf("%s scores %v, want 0", h.ID, h.Score)
		}
	}
}
