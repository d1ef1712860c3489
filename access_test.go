package ragd_test

import (
	"slices"
	"strings"
	"testing"

	"ragd"
)

// A document's access is kept sorted and unique, "*" (or nothing) means
// open, and hostile lists are refused whatever their size.
func TestNormalizeAccess(t *testing.T) {
	for _, c := range []struct {
		in, want []string
	}{
		{[]string{"ops", "eng", "ops"}, []string{"eng", "ops"}},
		{[]string{}, nil},
		{[]string{"eng", "*"}, nil},
		{[]string{"Ünïcode-team.1"}, []string{"Ünïcode-team.1"}},
	} {
		got, err := ragd.NormalizeAccess("access", c.in)
		if err != nil || !slices.Equal(got, c.want) {
			t.Fatalf("%q: %v %v, want %v", c.in, got, err, c.want)
		}
	}
	many := make([]string, 1000)
	for i := range many {
		many[i] = "g" + strings.Repeat("x", i%5)
	}
	for name, in := range map[string][]string{
		"1,000 groups":  many,
		"10 KB name":    {strings.Repeat("g", 10<<10)},
		"empty name":    {""},
		"comma":         {"a,b"},
		"space":         {"a b"},
		"control":       {"a\x00b"},
		"invalid utf-8": {"a\xffb"},
	} {
		_, err := ragd.NormalizeAccess("access", in)
		if ragd.KindOf(err) != ragd.KindInvalid {
			t.Fatalf("%s: %v, want a 422", name, err)
		}
		if msg := err.Error(); len(msg) > 300 {
			t.Fatalf("%s: the message repeats the input (%d bytes)", name, len(msg))
		}
	}
}

// LoadedAccess undoes StoredAccess: an open document's chunks hold
// EveryGroup and read back as open (nil), a restricted one's its groups.
func TestStoredAccessRoundTrip(t *testing.T) {
	for _, access := range [][]string{nil, {"eng"}, {"eng", "fin"}} {
		if got := ragd.LoadedAccess(ragd.StoredAccess(access)); !slices.Equal(got, access) {
			t.Errorf("ragd.LoadedAccess(ragd.StoredAccess(%v)) = %v", access, got)
		}
	}
	if got := ragd.StoredAccess(nil); !slices.Equal(got, []string{ragd.EveryGroup}) {
		t.Errorf("ragd.StoredAccess(nil) = %v, want [%s]", got, ragd.EveryGroup)
	}
}
