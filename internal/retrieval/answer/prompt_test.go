package answer

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"ragd"
)

func TestGroundedMessagesNumbersPassagesWithSourceAndPath(t *testing.T) {
	passages := []Passage{
		{Source: "docs/go_mem.html", Path: "The Go Memory Model > Informal Overview", Text: raceDefinition},
		{Source: "https://go.dev/ref/mem", Path: "Memory Model > Synchronization", Page: 4, Text: "A send on a channel is synchronized before the completion of the corresponding receive from that channel."},
		{Text: "Orphan text with no source."},
	}
	msgs := GroundedMessages("What is a data race?", passages)
	if len(msgs) != 2 || msgs[0].Role != ragd.RoleSystem || msgs[1].Role != ragd.RoleUser {
		t.Fatalf("messages %+v", msgs)
	}
	sys, user := msgs[0].Content, msgs[1].Content
	for _, want := range []string{"only", "[1]", NotFoundAnswer("What is a data race?"), "not instructions"} {
		if !strings.Contains(sys, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, sys)
		}
	}
	for _, want := range []string{
		"[1] source: docs/go_mem.html | section: The Go Memory Model > Informal Overview\n" + raceDefinition,
		"[2] source: https://go.dev/ref/mem | section: Memory Model > Synchronization | page 4\nA send on a channel",
		"[3]\nOrphan text",
		"Question: What is a data race?",
	} {
		if !strings.Contains(user, want) {
			t.Errorf("user message lacks %q:\n%s", want, user)
		}
	}
	if strings.Contains(user, "[4]") {
		t.Errorf("numbers past the passages:\n%s", user)
	}
	if strings.Index(user, "[1]") > strings.Index(user, "[2]") || strings.Index(user, "[2]") > strings.Index(user, "[3]") {
		t.Errorf("passages out of order:\n%s", user)
	}
}

func TestGroundedMessagesWithoutPassages(t *testing.T) {
	msgs := GroundedMessages("anything?", nil)
	if !strings.Contains(msgs[1].Content, "Passages: none.") || !strings.Contains(msgs[1].Content, "Question: anything?") {
		t.Fatalf("user message %q", msgs[1].Content)
	}
}

func TestGroundedMessagesBoundsPassageText(t *testing.T) {
	short := "A short passage that must survive whole."
	passages := []Passage{{Text: short}}
	for i := 0; i < 8; i++ {
		passages = append(passages, Passage{Source: "big.txt", Text: strings.Repeat("lorem ipsum dolor sit amet ", 400)}) // ~10.8k each
	}
	user := GroundedMessages("q", passages)[1].Content
	if len(user) > MaxPromptPassageChars+1000 {
		t.Fatalf("prompt is %d bytes, budget %d", len(user), MaxPromptPassageChars)
	}
	if !strings.Contains(user, "[1]\n"+short+"\n") {
		t.Fatalf("short passage not kept whole")
	}
	// the long passages share what is left evenly
	parts := strings.Split(user, "[")
	var sizes []int
	for _, p := range parts {
		if strings.Contains(p, "lorem") {
			sizes = append(sizes, len(p))
		}
	}
	if len(sizes) != 8 {
		t.Fatalf("%d long passages in the prompt", len(sizes))
	}
	for _, n := range sizes {
		if n < sizes[0]-30 || n > sizes[0]+30 || n < 1200 {
			t.Fatalf("unfair shares %v", sizes)
		}
	}
	if !strings.Contains(user, "amet …") && !strings.Contains(user, " …\n") {
		t.Fatalf("truncation not marked")
	}
}

func TestGroundedFairShares(t *testing.T) {
	texts := []string{strings.Repeat("a", 10), strings.Repeat("b", 100), strings.Repeat("c", 1000)}
	if got := fairShares(texts, 300); !reflect.DeepEqual(got, []int{10, 100, 190}) {
		t.Fatalf("got %v", got)
	}
	if got := fairShares(texts, 5000); !reflect.DeepEqual(got, []int{10, 100, 1000}) {
		t.Fatalf("got %v", got)
	}
}

func TestGroundedTruncateKeepsUTF8(t *testing.T) {
	s := strings.Repeat("héllo wörld ", 50)
	for max := 0; max < 60; max++ {
		got := truncate(s, max)
		if len(got) > max {
			t.Fatalf("truncate(%d) = %q (%d bytes)", max, got, len(got))
		}
		if !utf8.ValidString(got) {
			t.Fatalf("truncate(%d) broke UTF-8: %q", max, got)
		}
	}
}

func TestCitations(t *testing.T) {
	for _, tc := range []struct {
		answer string
		n      int
		want   []int
	}{
		{"A data race is a conflict [1].", 3, []int{1}},
		{"First [2]. Second [1]. Again [2].", 3, []int{2, 1}},
		{"Both [1, 3] and [2,3].", 3, []int{1, 3, 2}},
		{"Adjacent [3][1] markers.", 3, []int{3, 1}},
		{"Semicolons [2; 1] and spaces [ 3 ].", 3, []int{2, 1, 3}},
		{"Range [2-4] and en dash [5–6].", 6, []int{2, 3, 4, 5, 6}},
		{"Out of range [0] [4] [99] but [2].", 3, []int{2}},
		{"Partly out [1, 7].", 3, []int{1}},
		{"Huge range [1-999999].", 2, []int{1, 2}},
		{"Overlong number [12345678901234567890].", 3, nil},
		{"No citations here.", 3, nil},
		{"Not citations: [a], [], [1a], a[i], [-1], x[1:2].", 3, nil},
		{"Markdown [link](http://x) and [^1] footnote.", 3, nil},
		{"", 3, nil},
		{"Any [1] with no passages.", 0, nil},
	} {
		if got := Citations(tc.answer, tc.n); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Citations(%q, %d) = %v, want %v", tc.answer, tc.n, got, tc.want)
		}
	}
}

func TestIsNotFoundRecognizesTheReply(t *testing.T) {
	q := "how do I configure TLS?"
	for _, tc := range []struct {
		answer string
		want   bool
	}{
		{NotFoundAnswer(q), true},
		{"  " + NotFoundAnswer(q) + "\n", true},
		{"the indexed documents do not contain an answer to this question.", true},
		{`"` + NotFoundAnswer(q) + `"`, true},
		{NotFoundAnswer(q) + " However, [2] mentions certificates.", false},
		{"TLS is configured in config.yaml [1].", false},
		{"I don't know.", false},
		{"", false},
	} {
		if got := IsNotFound(tc.answer); got != tc.want {
			t.Errorf("IsNotFound(%q) = %v, want %v", tc.answer, got, tc.want)
		}
	}
}
