package library

import (
	"strings"
	"testing"
)

func TestQuoteClipped(t *testing.T) {
	for in, want := range map[string]string{
		"alt":                      `"alt"`,
		strings.Repeat("é", 64):    `"` + strings.Repeat("é", 64) + `"`,
		strings.Repeat("é", 65):    `"` + strings.Repeat("é", 64) + `"… (130 bytes)`,
		"a\"b" + "\n":              `"a\"b\n"`,
		strings.Repeat("n", 1<<20): `"` + strings.Repeat("n", 64) + `"… (1048576 bytes)`,
	} {
		if got := QuoteClipped(in); got != want {
			t.Errorf("QuoteClipped(%.20q…) = %s, want %s", in, got, want)
		}
	}
}
