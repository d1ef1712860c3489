package registry_test

import (
	"context"
	"maps"
	"slices"
	"testing"

	"ragd"
	"ragd/internal/catalog/registry"
)

// putShared records, in namespace ns, a document open to everyone (a0),
// one shared with eng (a1) and one with fin (a2).
func putShared(t *testing.T, r *registry.Registry) {
	t.Helper()
	for _, d := range []ragd.Document{
		{ID: "a0", Source: "file:///d/open", ContentHash: "h0"},
		{ID: "a1", Source: "file:///d/eng", ContentHash: "h1", Access: []string{"eng"}},
		{ID: "a2", Source: "file:///d/fin", ContentHash: "h2", Access: []string{"fin"}},
	} {
		d.Namespace = "ns"
		if err := r.Put(context.Background(), d); err != nil {
			t.Fatal(err)
		}
	}
}

// Get, GetMany and BySourcePrefix apply the context's audience
// themselves: a document it may not see is missing, exactly as one never
// indexed, so a caller reading with a user's context cannot forget the
// filter. A context without an audience is ragd's own and sees all.
func TestGetAppliesTheContextsAudience(t *testing.T) {
	r := newRegistry(t)
	putShared(t, r)
	base := context.Background()
	all := []string{"a0", "a1", "a2"}
	for name, tc := range map[string]struct {
		ctx  context.Context
		want []string
	}{
		"ragd's own": {base, all},
		"operator":   {ragd.WithAudience(base, ragd.EveryDocument()), all},
		"eng":        {ragd.WithAudience(base, ragd.GroupAudience([]string{"eng"})), []string{"a0", "a1"}},
		"no group":   {ragd.WithAudience(base, ragd.GroupAudience(nil)), []string{"a0"}},
	} {
		checkGet(t, r, name, tc.ctx, tc.want)
		many, err := r.GetMany(tc.ctx, "ns", append(slices.Clone(all), "missing"))
		if got := slices.Sorted(maps.Keys(many)); err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: GetMany %v (%v), want %v", name, got, err, tc.want)
		}
		refs, err := r.BySourcePrefix(tc.ctx, "ns", "file:///d/")
		var got []string
		for _, ref := range refs {
			got = append(got, ref.DocumentID)
		}
		slices.Sort(got)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: BySourcePrefix %v (%v), want %v", name, got, err, tc.want)
		}
	}
}

// GetAny, the system's read, sees every document whatever the audience;
// MayIndex refuses a document hidden from the audience rather than take
// it for missing.
func TestGetAnyAndMayIndexSeeHiddenDocuments(t *testing.T) {
	r := newRegistry(t)
	putShared(t, r)
	eng := ragd.WithAudience(context.Background(), ragd.GroupAudience([]string{"eng"}))
	if d, err := r.GetAny(eng, "ns", "a2"); err != nil || d.ID != "a2" {
		t.Errorf("GetAny(a2) for eng = %v, %v; want the document", d, err)
	}
	if _, err := r.GetAny(eng, "ns", "missing"); ragd.KindOf(err) != ragd.KindNotFound {
		t.Errorf("GetAny(missing) = %v; want NotFound", err)
	}
	if err := r.MayIndex(eng, "ns", "a2", nil); ragd.KindOf(err) != ragd.KindForbidden {
		t.Errorf("MayIndex(a2) for eng = %v; want Forbidden", err)
	}
	for _, id := range []string{"a1", "missing"} {
		if err := r.MayIndex(eng, "ns", id, nil); err != nil {
			t.Errorf("MayIndex(%s) for eng = %v; want nil", id, err)
		}
	}
}

// checkGet checks that Get under ctx returns each of a0, a1, a2 that want
// holds and answers for the others as for a missing document.
func checkGet(t *testing.T, r *registry.Registry, name string, ctx context.Context, want []string) {
	t.Helper()
	for _, id := range []string{"a0", "a1", "a2"} {
		d, err := r.Get(ctx, "ns", id)
		switch sees := slices.Contains(want, id); {
		case sees && (err != nil || d.ID != id):
			t.Errorf("%s: Get(%s) = %v, %v; want the document", name, id, d, err)
		case !sees && (d != nil || ragd.KindOf(err) != ragd.KindNotFound || err.Error() != "document "+id+" not found in namespace ns"):
			t.Errorf("%s: Get(%s) = %v, %v; want the answer for a missing document", name, id, d, err)
		}
	}
}
