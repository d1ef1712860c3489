package search

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// The bounds of the lists a retrieval request carries, so no request makes
// the server work in proportion to whatever size a client claims: a longer
// list is a 422 naming the field, before any search.
const (
	// MaxScopeIDs bounds scope and scope_filter.document_ids, each.
	MaxScopeIDs = 1000
	// MaxFilterTags bounds scope_filter.tags (a document holds at most
	// 100 tags, so more could match nothing more).
	MaxFilterTags = 100
	// MaxKBNames bounds scope_filter.kb_names: each is one more search.
	MaxKBNames = 20
	// MaxSourceTypes bounds scope_filter.source_types (there are six).
	MaxSourceTypes = 20
	// maxListItemChars bounds one id or tag of a filter: ids are 32
	// characters and tags at most 100, so a longer one matches nothing.
	maxListItemChars = 256
)

// boundedList checks one list of a request against its bound and the
// length of each item; loc is the field's location in the body.
func boundedList(loc []string, list []string, limit int) error {
	name := strings.Join(loc[1:], ".")
	if len(list) > limit {
		return invalidAt(loc, "value_error", "%s holds %d items; at most %d are allowed", name, len(list), limit)
	}
	for _, v := range list {
		if utf8.RuneCountInString(v) > maxListItemChars {
			return invalidAt(loc, "value_error", "%s holds an item of more than %d characters", name, maxListItemChars)
		}
	}
	return nil
}

// checkLists bounds every list of a retrieval request (queries are
// bounded by alternatives).
func checkLists(req RetrieveRequest, f ScopeFilter) error {
	for _, l := range []struct {
		loc   []string
		list  []string
		limit int
	}{
		{[]string{"body", "scope"}, req.Scope, MaxScopeIDs},
		{[]string{"body", "scope_filter", "document_ids"}, f.DocumentIDs, MaxScopeIDs},
		{[]string{"body", "scope_filter", "tags"}, f.Tags, MaxFilterTags},
		{[]string{"body", "scope_filter", "kb_names"}, f.KBNames, MaxKBNames},
		{[]string{"body", "scope_filter", "source_types"}, f.SourceTypes, MaxSourceTypes},
	} {
		if err := boundedList(l.loc, l.list, l.limit); err != nil {
			return err
		}
	}
	return nil
}

// sortedSet is in's non-blank values, trimmed, sorted and without repeats:
// O(n log n), where a linear search per value made a long list quadratic.
func sortedSet(in []string) []string {
	out := make([]string, 0, len(in))
	for _, v := range in {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return nil
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// intersect is the values of a that b holds too; both sorted sets.
func intersect(a, b []string) []string {
	var out []string
	for _, v := range a {
		if _, ok := slices.BinarySearch(b, v); ok {
			out = append(out, v)
		}
	}
	return out
}
