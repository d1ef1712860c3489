package wire

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"ragd"
)

// The source types a search may be limited to are described by a struct
// tag, which cannot name ragd.SourceTypes: it must list exactly them.
func TestSourceTypesTagListsEveryType(t *testing.T) {
	f, _ := reflect.TypeOf(ScopeFilter{}).FieldByName("SourceTypes")
	tag := f.Tag.Get("jsonschema")
	names := make([]string, len(ragd.SourceTypes))
	for i, st := range ragd.SourceTypes {
		names[i] = string(st)
	}
	if want := "only these source types: " + strings.Join(names, ", "); tag != want {
		t.Fatalf("source_types is described as %q, want %q", tag, want)
	}
}

// top_k's bounds are described by struct tags too: they must be
// DefaultTopK and MaxTopK.
func TestTopKTagsAreTheLimits(t *testing.T) {
	f, _ := reflect.TypeOf(RetrieveRequest{}).FieldByName("TopK")
	if f.Tag.Get("maximum") != strconv.Itoa(MaxTopK) || f.Tag.Get("default") != strconv.Itoa(DefaultTopK) {
		t.Fatalf("top_k's tags %q, want maximum %d and default %d", f.Tag, MaxTopK, DefaultTopK)
	}
}
