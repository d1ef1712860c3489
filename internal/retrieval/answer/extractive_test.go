package answer

import (
	"html"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// goMemParagraphs returns the <p> paragraphs of the Go memory model
// ($GOROOT/doc/go_mem.html) as plain text, whitespace collapsed the way
// ingest normalizes a paragraph.
func goMemParagraphs(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "doc", "go_mem.html"))
	if err != nil {
		t.Skipf("go_mem.html not available: %v", err)
	}
	tag := regexp.MustCompile(`<[^>]+>`)
	var out []string
	for _, m := range regexp.MustCompile(`(?s)<p>(.*?)(?:</p>|<p>|<h[1-6])`).FindAllStringSubmatch(string(raw), -1) {
		if text := strings.Join(strings.Fields(html.UnescapeString(tag.ReplaceAllString(m[1], ""))), " "); text != "" {
			out = append(out, text)
		}
	}
	if len(out) < 20 {
		t.Fatalf("only %d paragraphs in go_mem.html", len(out))
	}
	return out
}

// paragraphWith returns the first paragraph containing s.
func paragraphWith(t *testing.T, paras []string, s string) string {
	t.Helper()
	for _, p := range paras {
		if strings.Contains(p, s) {
			return p
		}
	}
	t.Fatalf("no paragraph contains %q", s)
	return ""
}

const raceDefinition = "A data race is defined as a write to a memory location happening concurrently with another read or write to that same location, unless all the accesses involved are atomic data accesses as provided by the sync/atomic package."

// checkCitations verifies every marker in answer names a passage, and that
// cited lists exactly the cited passages in first-citation order.
func checkCitations(t *testing.T, answer string, cited []int, n int) {
	t.Helper()
	var want []int
	for _, c := range Citations(answer, 1<<20) {
		if c < 1 || c > n {
			t.Fatalf("citation [%d] outside 1..%d in %q", c, n, answer)
		}
		want = append(want, c-1)
	}
	if !reflect.DeepEqual(cited, want) {
		t.Fatalf("cited %v, markers say %v", cited, want)
	}
}

func TestExtractDefinesDataRace(t *testing.T) {
	paras := goMemParagraphs(t)
	// what a retriever might return for the question, best first
	passages := []Passage{
		{Source: "go_mem.html", Path: "Introduction", Text: paragraphWith(t, paras, "Programs that modify data being simultaneously accessed")},
		{Source: "go_mem.html", Path: "Informal Overview", Text: paragraphWith(t, paras, "is defined as a write")},
		{Source: "go_mem.html", Path: "Informal Overview", Text: paragraphWith(t, paras, "there are limitations to what a Go implementation can do")},
		{Source: "go_mem.html", Path: "Implementation Restrictions", Text: paragraphWith(t, paras, "upon detecting a data race")},
	}
	answer, cited := Extract("what is a data race", passages, 3)
	if !strings.Contains(answer, raceDefinition+" [2]") {
		t.Fatalf("answer lacks the definition cited [2]:\n%s", answer)
	}
	if len(cited) == 0 || cited[0] != 1 {
		t.Fatalf("cited %v, want passage 1 first", cited)
	}
	checkCitations(t, answer, cited, len(passages))
	if n := strings.Count(answer, "] "); n > 2 {
		t.Fatalf("more than 3 sentences: %q", answer)
	}
}

func TestExtractOverWholeDocument(t *testing.T) {
	paras := goMemParagraphs(t)
	passages := make([]Passage, len(paras))
	for i, p := range paras {
		passages[i] = Passage{Text: p}
	}
	answer, cited := Extract("What is a data race?", passages, 2)
	if !strings.Contains(answer, raceDefinition) {
		t.Fatalf("answer lacks the definition:\n%s", answer)
	}
	def := strings.Index(answer, raceDefinition) + len(raceDefinition)
	n := Citations(answer[def:], len(passages))[0]
	if !strings.Contains(passages[n-1].Text, raceDefinition) {
		t.Fatalf("definition cited [%d], which does not contain it", n)
	}
	checkCitations(t, answer, cited, len(passages))

	for _, q := range []string{"DRF-SC", "sync.Once", "how do channel sends and receives synchronize", "finalizers", "unlock of a sync.Mutex"} {
		answer, cited := Extract(q, passages, 4)
		if answer == "" {
			t.Errorf("%q: no answer", q)
		}
		checkCitations(t, answer, cited, len(passages))
		if strings.Count(answer, "] ")+1 > 4 {
			t.Errorf("%q: more than 4 sentences: %q", q, answer)
		}
	}
}

func TestExtractDropsNearDuplicates(t *testing.T) {
	// consecutive chunks of a section overlap: the second repeats the first's
	// last sentence, and a third paraphrases it with one word changed
	first := "Go approaches its memory model in much the same way as the rest of the language. " + raceDefinition
	second := raceDefinition + " As noted already, programmers are strongly encouraged to use appropriate synchronization to avoid data races."
	third := strings.Replace(raceDefinition, "concurrently", "simultaneously", 1)
	passages := []Passage{{Text: first}, {Text: second}, {Text: third}}
	answer, cited := Extract("data race definition", passages, 3)
	if c := strings.Count(answer, "is defined as"); c != 1 {
		t.Fatalf("definition appears %d times:\n%s", c, answer)
	}
	if !strings.Contains(answer, raceDefinition+" [1]") {
		t.Fatalf("the copy in the best-ranked passage should win:\n%s", answer)
	}
	if !strings.Contains(answer, "avoid data races. [2]") {
		t.Fatalf("distinct sentence missing:\n%s", answer)
	}
	checkCitations(t, answer, cited, len(passages))
}

func TestExtractReadsInDocumentOrder(t *testing.T) {
	passages := []Passage{
		{Text: "Channels are typed conduits. A send on a channel happens before the corresponding receive from that channel completes."},
		{Text: "The closing of a channel is synchronized before a receive that returns because the channel is closed. Closing a channel twice panics."},
	}
	answer, cited := Extract("channel receive", passages, 2)
	want := "A send on a channel happens before the corresponding receive from that channel completes. [1] " +
		"The closing of a channel is synchronized before a receive that returns because the channel is closed. [2]"
	if answer != want || !reflect.DeepEqual(cited, []int{0, 1}) {
		t.Fatalf("got %q %v", answer, cited)
	}
	again, againCited := Extract("channel receive", passages, 2)
	if again != answer || !reflect.DeepEqual(againCited, cited) {
		t.Fatal("Extract is not deterministic")
	}
}

func TestExtractFavoursEarlierPassagesAndPenalizesLength(t *testing.T) {
	same := "Goroutine creation is synchronized before the goroutine starts running."
	answer, cited := Extract("goroutine creation", []Passage{{Text: "Unrelated text about cats."}, {Text: same}, {Text: "Go statement. " + same}}, 1)
	if answer != same+" [2]" || !reflect.DeepEqual(cited, []int{1}) {
		t.Fatalf("tie should go to the earlier passage: %q %v", answer, cited)
	}

	short := "Goroutine creation."
	long := "Goroutine creation " + strings.Repeat("and then some more words ", 20) + "ends here."
	answer, _ = Extract("goroutine creation", []Passage{{Text: short + " " + long + " " + same}}, 1)
	if answer != same+" [1]" {
		t.Fatalf("short and overlong sentences should lose: %q", answer)
	}
}

func TestExtractNothingMatches(t *testing.T) {
	passages := []Passage{{Text: raceDefinition}}
	for _, q := range []string{"kubernetes helm chart", "what is it?", "", "   "} {
		if answer, cited := Extract(q, passages, 3); answer != "" || cited != nil {
			t.Errorf("%q: got %q %v, want nothing", q, answer, cited)
		}
	}
	if answer, cited := Extract("data race", nil, 3); answer != "" || cited != nil {
		t.Errorf("no passages: got %q %v", answer, cited)
	}
}

func TestExtractDefaultsSentenceCount(t *testing.T) {
	text := "Mutexes guard shared data one. Mutexes guard shared state two. Mutexes protect critical sections three. Mutexes serialize writers four. Mutexes order unlock before lock five."
	answer, _ := Extract("mutexes", []Passage{{Text: text}}, 0)
	if n := strings.Count(answer, "[1]"); n != DefaultExtractSentences {
		t.Fatalf("%d sentences, want %d: %q", n, DefaultExtractSentences, answer)
	}
}

func TestExtractSplitsSentences(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"Use a mutex, e.g. sync.Mutex, for this. Then unlock it.", []string{"Use a mutex, e.g. sync.Mutex, for this.", "Then unlock it."}},
		{"Pi is 3.14159 roughly. Go 1.19 revised the model. It did.", []string{"Pi is 3.14159 roughly.", "Go 1.19 revised the model.", "It did."}},
		{"The approach of Hans-J. Boehm and Sarita V. Adve in PLDI 2008. It is formal.", []string{"The approach of Hans-J. Boehm and Sarita V. Adve in PLDI 2008.", "It is formal."}},
		{"Ask Dr. Smith about the U.S. Army (i.e. the army). Fine!", []string{"Ask Dr. Smith about the U.S. Army (i.e. the army).", "Fine!"}},
		{"He said \"stop.\" Then he left? Yes.", []string{"He said \"stop.\"", "Then he left?", "Yes."}},
		{"A memory operation is modeled by four details:\n- its kind,\n- its location in the program,\n1. the values read", []string{"A memory operation is modeled by four details:", "its kind,", "its location in the program,", "the values read"}},
		{"A hard-wrapped paragraph keeps going past the end of\nthe line until the sentence ends. Next one.", []string{"A hard-wrapped paragraph keeps going past the end of the line until the sentence ends.", "Next one."}},
		{"Overview\nThe model is simple.", []string{"Overview", "The model is simple."}},
		{"| a | b |\n| 1 | 2 |", []string{"| a | b |", "| 1 | 2 |"}},
	} {
		var got []string
		for _, s := range splitSentences(tc.in) {
			got = append(got, s.text)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("splitSentences(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestNotFoundAnswer(t *testing.T) {
	got := NotFoundAnswer("  how do I   configure TLS? ")
	if got != `The indexed documents do not contain an answer to "how do I configure TLS?".` {
		t.Fatalf("got %q", got)
	}
	if got := NotFoundAnswer(""); !strings.Contains(got, "do not contain an answer") {
		t.Fatalf("got %q", got)
	}
	if got := NotFoundAnswer(strings.Repeat("é", 500)); len([]rune(got)) > 300 {
		t.Fatalf("long query not shortened: %d runes", len([]rune(got)))
	}
}

func TestDefinitionalQuestionPrefersTheDefinition(t *testing.T) {
	passages := []Passage{
		{Text: "While programmers should write Go programs without data races, there are limits to what an implementation can do in response to a data race. An implementation may always react to a data race by reporting the race."},
		{Text: "Go approaches its memory model simply. A data race is defined as a write to a memory location happening concurrently with another read or write to that same location."},
	}
	answer, _ := Extract("What is a data race?", passages, 1)
	if !strings.Contains(answer, "A data race is defined as") {
		t.Fatalf("want the defining sentence, got %q", answer)
	}
	for q, want := range map[string]string{"What is a data race?": "data race", "what's the GOPATH": "gopath",
		"Define garbage collection.": "garbage collection", "How do I run tests?": ""} {
		if got := definitionSubject(q); got != want {
			t.Errorf("definitionSubject(%q) = %q, want %q", q, got, want)
		}
	}
}
