package ragd

import "testing"

func TestDisguisingCharacters(t *testing.T) {
	for _, tc := range []struct {
		in, stripped string
		first        rune
	}{
		{"invoice\u202Efdp.exe", "invoicefdp.exe", 0x202E},
		{"\u2066a\u2069 \u200Fb\u200E \u061Cc \u202Ad\u202C", "a b c d", 0x2066},
		// Not controls: right-to-left letters, the zero-width joiner of
		// emoji and Indic scripts, a plain name.
		{"שלום مرحبا", "שלום مرحبا", 0},
		{"👩\u200D💻 क्\u200Dष", "👩\u200D💻 क्\u200Dष", 0},
		{"report.pdf", "report.pdf", 0},
		// Invisible: a zero width space, a byte order mark, a word joiner.
		{"re\u200Bport.md", "report.md", 0x200B},
		{"\uFEFFreport.md", "report.md", 0xFEFF},
		{"re\u2060port\u200B.md", "report.md", 0x2060},
	} {
		r, ok := Disguising(tc.in)
		if r != tc.first || ok != (tc.first != 0) {
			t.Errorf("Disguising(%+q) = %U, %v; want %U", tc.in, r, ok, tc.first)
		}
		if got := StripDisguising(tc.in); got != tc.stripped {
			t.Errorf("StripDisguising(%+q) = %+q, want %+q", tc.in, got, tc.stripped)
		}
	}
}
