package document

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// MaxCaptionChars bounds Image.Caption, in bytes.
const MaxCaptionChars = 300

// CaptionStart matches the label that opens a caption: "Figure 3",
// "Fig. 2.1:", "FIGURE 4 Results", "Table 1 – Sizes", but not body text
// such as "Figure 3 shows" or "Figure 1.2, 1.3 and".
var CaptionStart = regexp.MustCompile(`^(?i:figure|fig\.?|table)\s*` + captionNumber)

// FigureStart is CaptionStart for PDF, where "Table N" heads a table,
// not a picture.
var FigureStart = regexp.MustCompile(`^(?i:figure|fig\.?)\s*` + captionNumber)

// captionNumber is a figure number ("2", "1.3", "4-2", "2a") followed by
// punctuation, a capitalized word or the end of the line.
const captionNumber = `[0-9]+(?:[.\-][0-9]+)*[a-z]?(?:\s*[.:|—–-](?:$|[^0-9])|\s+[\p{Lu}\p{N}("“\[]|\s*$)`

// Clip shortens s to at most n bytes at a word boundary, adding "…".
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	if i := strings.LastIndexByte(s[:n], ' '); i > n/2 {
		cut = i
	}
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.TrimSpace(s[:cut]) + "…"
}

// ClipTail keeps the last n bytes of s, starting at a word boundary.
func ClipTail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := len(s) - n
	if i := strings.IndexByte(s[cut:], ' '); i >= 0 && i < n/2 {
		cut += i + 1
	}
	for cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut++
	}
	return "…" + strings.TrimSpace(s[cut:])
}

// OneLine collapses all whitespace runs to single spaces.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
