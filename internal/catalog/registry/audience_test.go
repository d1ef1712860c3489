package registry_test

import (
	"context"
	"slices"
	"testing"

	"ragd"
)

// The registry applies the context's audience (ragd.WithAudience) to every
// read that lists, counts, completes or fetches documents for a caller: a
// caller passes no audience, so none can forget it. A context without one
// is ragd's own and sees every document.
func TestRegistryAppliesTheContextsAudience(t *testing.T) {
	r := newRegistry(t)
	base := context.Background()
	for _, d := range []ragd.Document{
		{ID: "a0", Source: "file:///open", ContentHash: "h0"},
		{ID: "a1", Source: "file:///eng", ContentHash: "h1", Access: []string{"eng"}},
		{ID: "a2", Source: "file:///fin", ContentHash: "h2", Access: []string{"fin"}},
	} {
		d.Namespace = "ns"
		if err := r.Put(base, d); err != nil {
			t.Fatal(err)
		}
	}
	for name, tc := range map[string]struct {
		ctx  context.Context
		want []string
	}{
		"ragd's own":    {base, []string{"a0", "a1", "a2"}},
		"operator":      {ragd.WithAudience(base, ragd.EveryDocument()), []string{"a0", "a1", "a2"}},
		"eng":           {ragd.WithAudience(base, ragd.GroupAudience([]string{"eng"})), []string{"a0", "a1"}},
		"no group":      {ragd.WithAudience(base, ragd.GroupAudience(nil)), []string{"a0"}},
		"last one wins": {ragd.WithAudience(ragd.WithAudience(base, ragd.EveryDocument()), ragd.GroupAudience([]string{"fin"})), []string{"a0", "a2"}},
	} {
		page, total, err := r.PageFor(tc.ctx, "ns", 0, 10)
		var got []string
		for _, d := range page {
			got = append(got, d.ID)
		}
		slices.Sort(got)
		if err != nil || total != len(tc.want) || !slices.Equal(got, tc.want) {
			t.Errorf("%s: PageFor %v (total %d, %v), want %v", name, got, total, err, tc.want)
		}
		ids, _, err := r.IDsWithPrefix(tc.ctx, "ns", "a", 10)
		if err != nil || !slices.Equal(ids, tc.want) {
			t.Errorf("%s: IDsWithPrefix %v (%v), want %v", name, ids, err, tc.want)
		}
		hidden, err := r.HiddenIDs(tc.ctx, "ns")
		if err != nil || len(hidden) != 3-len(tc.want) {
			t.Errorf("%s: HiddenIDs %v (%v), want %d", name, hidden, err, 3-len(tc.want))
		}
		checkGet(t, r, name, tc.ctx, tc.want)
	}
}
