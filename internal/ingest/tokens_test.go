package ingest

import (
	"reflect"
	"testing"
)

func TestCountTokens(t *testing.T) {
	cases := map[string]int{
		"":                 0,
		"   \n\t ":         0,
		"Hello, world!":    4,
		"don't stop":       2,
		"v1.2.3":           5, // v1 . 2 . 3
		"naïve café":       2,
		"well-known_name":  1,
		"12345 apples":     2,
		"a+b=c":            5,
		"日本語のテキスト":         1,
		"x\u00a0y":         2, // a no-break space separates
		"e\u0301tude done": 2, // combining mark stays in the word
	}
	for in, want := range cases {
		if got := CountTokens(in); got != want {
			t.Errorf("CountTokens(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestCountTokensAdditiveAtTokenBoundaries(t *testing.T) {
	s := "The quick-brown fox (aged 12) jumps: over 3.5 lazy dogs!"
	total := CountTokens(s)
	for _, sp := range tokenSpans(s) {
		if got := CountTokens(s[:sp[0]]) + CountTokens(s[sp[0]:]); got != total {
			t.Fatalf("cut at %d: %d tokens, want %d", sp[0], got, total)
		}
	}
}

func TestCountTokensDoesNotAllocate(t *testing.T) {
	s := "Some ordinary text, with punctuation; numbers 42 and words."
	if n := testing.AllocsPerRun(100, func() { CountTokens(s) }); n != 0 {
		t.Errorf("CountTokens allocates %v times per call", n)
	}
}

func TestSentenceSpans(t *testing.T) {
	s := "Dr. smith went home. He left! Why? 3 cats sat. “Quoted.” Then e.g. this stays.\nNew line"
	var got []string
	for _, sp := range sentenceSpans(s) {
		got = append(got, s[sp.start:sp.end])
	}
	want := []string{"Dr. smith went home.", "He left!", "Why?", "3 cats sat.", "“Quoted.”", "Then e.g. this stays.", "New line"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sentences:\n got %q\nwant %q", got, want)
	}
}
