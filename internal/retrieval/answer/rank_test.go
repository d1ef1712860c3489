package answer

import (
	"reflect"
	"testing"
)

func TestSubsetsLeaveEachPassageOutOnce(t *testing.T) {
	got := subsets(6, 3)
	want := [][]int{{0, 1, 2, 4, 5}, {0, 2, 3, 5}, {0, 1, 3, 4}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("subsets(6,3) = %v, want %v", got, want)
	}
	missing := map[int]int{}
	for _, set := range got {
		in := map[int]bool{}
		for _, j := range set {
			in[j] = true
		}
		for j := 1; j < 6; j++ {
			if !in[j] {
				missing[j]++
			}
		}
	}
	for j := 1; j < 6; j++ {
		if missing[j] != 1 {
			t.Errorf("passage %d missing from %d subsets, want 1", j, missing[j])
		}
	}
}

func TestRenumberMapsSubsetCitationsToGlobalOnes(t *testing.T) {
	if got := renumber("A [1]. B [2][3]. C [9].", []int{0, 2, 4}); got != "A [1]. B [3][5]. C [9]." {
		t.Fatalf("renumber = %q", got)
	}
}

func TestRankedExtractPrefersTheAnswerCoveringTheQuery(t *testing.T) {
	s := &Service{Settings: Settings{Candidates: 2, MaxSentences: 1}}
	passages := []Passage{
		{Text: "Tides are caused by the moon."},
		{Text: "The moon's gravity pulls the oceans, which makes tides rise and fall twice daily."},
		{Text: "Tides matter to sailors."},
	}
	answer, cited, step := s.rankedExtract("why do tides rise and fall twice daily", passages)
	if step.Tool != "rank" || step.Args["chosen"] == nil {
		t.Fatalf("step %+v", step)
	}
	if answer == "" || len(cited) == 0 {
		t.Fatalf("no answer")
	}
	for _, c := range cited {
		if c < 0 || c >= len(passages) {
			t.Fatalf("cited %d out of range", c)
		}
	}
	if overlap(answer, queryTerms("why do tides rise and fall twice daily")) < overlap("Tides are caused by the moon.", queryTerms("why do tides rise and fall twice daily")) {
		t.Fatalf("chose the weaker answer %q", answer)
	}
}
