package embed

import (
	"slices"
	"testing"
)

func TestTokens(t *testing.T) {
	got := slices.Collect(tokens("Don’t stop -- well-known U.S. Café's 3D mp3! trailing- 'quoted' it's"))
	want := []string{"don't", "stop", "well-known", "u", "s", "café's", "3d", "mp3", "trailing", "quoted", "it's"}
	if !slices.Equal(got, want) {
		t.Fatalf("tokens = %q\nwant     %q", got, want)
	}
}

func TestExpandContraction(t *testing.T) {
	cases := map[string][]string{
		"don't":   {"do", "not"},
		"can't":   {"can", "not"},
		"won't":   {"will", "not"},
		"we'll":   {"we", "will"},
		"i'm":     {"i", "am"},
		"it's":    {"it"},
		"o'brien": {"o", "brien"},
	}
	for in, want := range cases {
		if got := expandContraction(in); !slices.Equal(got, want) {
			t.Errorf("%q → %q, want %q", in, got, want)
		}
	}
}
