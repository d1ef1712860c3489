package vocab

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestTermsMatchWeaviateWordTokenization(t *testing.T) {
	got := Terms("SA_ONSTACK, the net/http Server's ReadTimeout (v1.2)")
	want := []string{"sa", "onstack", "the", "net", "http", "server", "s", "readtimeout", "v1", "2"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Terms = %q, want %q", got, want)
	}
}

func TestStemJoinsInflections(t *testing.T) {
	for _, group := range [][]string{
		{"read", "reads", "reader", "readers", "reading"},
		{"serializer", "serialization", "serialized", "serialize"},
		{"timeout", "timeouts"},
		{"cancellation", "cancellations"},
		{"running", "run"},
		// Longest suffix first: "shipments" must lose "ments", not "s".
		{"shipment", "shipments"},
		{"capability", "capabilities"},
		{"directive", "directives"},
	} {
		for _, w := range group[1:] {
			if Stem(w) != Stem(group[0]) {
				t.Errorf("Stem(%q) = %q, Stem(%q) = %q: want the same", w, Stem(w), group[0], Stem(group[0]))
			}
		}
	}
	// Unrelated words must not merge: each merge adds noise to every query.
	for _, pair := range [][2]string{{"pass", "past"}, {"form", "format"}, {"sing", "single"}, {"heap", "help"}} {
		if Stem(pair[0]) == Stem(pair[1]) {
			t.Errorf("Stem merges %q and %q into %q", pair[0], pair[1], Stem(pair[0]))
		}
	}
}

func TestStatsVariantsAndIDF(t *testing.T) {
	s := NewStats(10, map[string]int{"reader": 2, "reading": 1, "read": 5, "heap": 1, "the": 10})
	if got, want := s.Variants("reads"), []string{"read", "reader", "reading"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Variants(reads) = %q, want %q", got, want)
	}
	if got := s.Variants("reader"); !reflect.DeepEqual(got, []string{"read", "reading"}) {
		t.Errorf("Variants(reader) = %q: must exclude the word itself", got)
	}
	if got := s.Variants("spreadsheet"); got != nil {
		t.Errorf("Variants of a word the namespace lacks = %q", got)
	}
	if !(s.IDF("heap") > s.IDF("read") && s.IDF("read") > s.IDF("the")) {
		t.Errorf("IDF not decreasing with frequency: heap %.2f read %.2f the %.2f", s.IDF("heap"), s.IDF("read"), s.IDF("the"))
	}
	if s.IDF("absent") < s.IDF("heap") {
		t.Error("an absent word must be at least as rare as any present one")
	}
	if s.Chunks() != 10 || s.DF("read") != 5 || !s.Has("heap") || s.Has("absent") {
		t.Error("counts not kept")
	}
}

// Counts encode to what encoding/json makes of them, words in any order.
func TestCountsJSON(t *testing.T) {
	c := CountTexts([]string{"Heap > Intro\nA heap is a tree", `quote " back \ slash`, "tab\there ünïcode 42"})
	c.DF["odd\"\\\x01word"] = 3
	got, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		N  int            `json:"n"`
		DF map[string]int `json:"df"`
	}
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatalf("%s: %v", got, err)
	}
	if back.N != c.Chunks || !reflect.DeepEqual(back.DF, c.DF) {
		t.Fatalf("decoded %+v, want %d chunks %v", back, c.Chunks, c.DF)
	}
}
