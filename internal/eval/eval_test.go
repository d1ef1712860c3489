package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeSearcher answers each query with a fixed list of texts.
type fakeSearcher struct {
	answers map[string][]string
	err     map[string]error
	calls   atomic.Int32
	topK    atomic.Int32
}

func (f *fakeSearcher) Search(ctx context.Context, query string, topK int) ([]string, error) {
	f.calls.Add(1)
	f.topK.Store(int32(topK))
	if err := f.err[query]; err != nil {
		return nil, err
	}
	return f.answers[query], nil
}

func filler(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "unrelated passage"
	}
	return out
}

// with returns filler texts with text at rank (1-based).
func with(n, rank int, text string) []string {
	out := filler(n)
	out[rank-1] = text
	return out
}

// tinySet: paraphrase hits at ranks 1, 3 and 2 (the last one only after
// case and white-space folding); keyword hits at rank 7 and not at all (the
// answer sits at rank 11, past the top 10).
func tinySet() ([]Question, *fakeSearcher) {
	qs := []Question{
		{ID: "p1", Query: "q1", MustContain: []string{"alpha beta"}, Kind: KindParaphrase},
		{ID: "p2", Query: "q2", MustContain: []string{"nothing here", "gamma"}, Kind: KindParaphrase},
		{ID: "k1", Query: "q3", MustContain: []string{"delta"}, Kind: KindKeyword},
		{ID: "k2", Query: "q4", MustContain: []string{"epsilon"}, Kind: KindKeyword},
		{ID: "p3", Query: "q5", MustContain: []string{"Zeta  ETA\ttheta"}, Kind: KindParaphrase},
	}
	long := strings.Repeat("x", 200)
	f := &fakeSearcher{answers: map[string][]string{
		"q1": with(10, 1, "here: alpha beta."),
		"q2": with(10, 3, "the gamma ray"),
		"q3": with(10, 7, "delta"),
		"q4": append([]string{long}, append(filler(9), "epsilon")...),
		"q5": with(4, 2, "… zeta\neta   THETA …"),
	}}
	return qs, f
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func checkScores(t *testing.T, name string, got, want Scores) {
	t.Helper()
	if got.N != want.N || !near(got.Recall1, want.Recall1) || !near(got.Recall5, want.Recall5) ||
		!near(got.Recall10, want.Recall10) || !near(got.MRR, want.MRR) {
		t.Errorf("%s: got %+v, want %+v", name, got, want)
	}
}

func TestRunScores(t *testing.T) {
	qs, f := tinySet()
	rep, err := Run(context.Background(), f, qs, 3)
	if err != nil {
		t.Fatal(err)
	}
	if f.calls.Load() != 5 || f.topK.Load() != TopK {
		t.Errorf("searcher called %d times with top %d, want 5 with %d", f.calls.Load(), f.topK.Load(), TopK)
	}
	checkScores(t, "paraphrase", rep.ByKind[KindParaphrase], Scores{N: 3, Recall1: 1.0 / 3, Recall5: 1, Recall10: 1, MRR: (1 + 1.0/3 + 1.0/2) / 3})
	checkScores(t, "keyword", rep.ByKind[KindKeyword], Scores{N: 2, Recall1: 0, Recall5: 0, Recall10: 0.5, MRR: (1.0 / 7) / 2})
	checkScores(t, "overall", rep.Overall, Scores{N: 5, Recall1: 0.2, Recall5: 0.6, Recall10: 0.8, MRR: (1 + 1.0/3 + 1.0/2 + 1.0/7) / 5})
	if len(rep.ByKind) != 2 {
		t.Errorf("ByKind has %d kinds, want 2", len(rep.ByKind))
	}
	if len(rep.Misses) != 2 {
		t.Fatalf("misses: %+v, want k1 and k2", rep.Misses)
	}
	m1, m2 := rep.Misses[0], rep.Misses[1]
	if m1.ID != "k1" || m1.Rank != 7 || m1.Kind != KindKeyword || m1.Query != "q3" || m1.Top != "unrelated passage" {
		t.Errorf("first miss %+v", m1)
	}
	if m2.ID != "k2" || m2.Rank != 0 || m2.Top != strings.Repeat("x", 120) {
		t.Errorf("second miss %+v (top %d chars)", m2, len(m2.Top))
	}
}

func TestRunEmptyAnswersAndErrors(t *testing.T) {
	qs := []Question{
		{ID: "a", Query: "none", MustContain: []string{"abc"}, Kind: KindKeyword},
		{ID: "c", Query: "other", MustContain: []string{"abc"}, Kind: KindKeyword},
	}
	if _, err := Run(context.Background(), &fakeSearcher{}, qs, 0); err == nil || !strings.Contains(err.Error(), "no question got any result") {
		t.Errorf("Run where nothing is found: %v", err)
	}
	rep, err := Run(context.Background(), &fakeSearcher{answers: map[string][]string{"other": {"xyz"}}}, qs, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkScores(t, "no results", rep.Overall, Scores{N: 2})
	if len(rep.Misses) != 2 || rep.Misses[0].Rank != 0 || rep.Misses[0].Top != "" || rep.Misses[1].Top != "xyz" {
		t.Errorf("misses %+v", rep.Misses)
	}

	boom := errors.New("boom")
	qs = append(qs, Question{ID: "b", Query: "fails", MustContain: []string{"abc"}, Kind: KindKeyword})
	_, err = Run(context.Background(), &fakeSearcher{err: map[string]error{"fails": boom}}, qs, 2)
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "question b") {
		t.Errorf("Run with a failing search: %v", err)
	}
	if _, err := Run(context.Background(), &fakeSearcher{}, nil, 1); err == nil {
		t.Error("Run without questions: no error")
	}
}

func TestPercentile(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 20; i++ {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	if p := percentile(d, 50); p != 10*time.Millisecond {
		t.Errorf("p50 = %s", p)
	}
	if p := percentile(d, 95); p != 19*time.Millisecond {
		t.Errorf("p95 = %s", p)
	}
	if p := percentile(d[:1], 95); p != time.Millisecond {
		t.Errorf("p95 of one = %s", p)
	}
	if p := percentile(nil, 50); p != 0 {
		t.Errorf("p50 of none = %s", p)
	}
}

func TestHitFolding(t *testing.T) {
	text := "The  Quick\n\tbrown FOX jumps\u00a0over Ärger"
	for _, tc := range []struct {
		must []string
		want bool
	}{
		{[]string{"quick brown fox"}, true},
		{[]string{"THE QUICK"}, true},
		{[]string{"fox\njumps  over"}, true},
		{[]string{"  brown fox  "}, true},
		{[]string{"ärger"}, true},
		{[]string{"quickbrown"}, false},
		{[]string{"lazy dog", "jumps over"}, true},
		{[]string{"lazy dog"}, false},
		{[]string{"", "  "}, false},
		{nil, false},
	} {
		if got := Hit(text, tc.must); got != tc.want {
			t.Errorf("Hit(%q) = %v, want %v", tc.must, got, tc.want)
		}
	}
	if got := Fold("  A\r\n b\tC  "); got != "a b c" {
		t.Errorf("Fold = %q", got)
	}
}

func TestLoadQuestions(t *testing.T) {
	good := `{"id":"a","query":"how?","must_contain":["x y z"],"kind":"paraphrase"}

{"id":"b","query":"what","must_contain":["one","two"],"kind":"keyword"}
`
	qs, err := LoadQuestions(strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 2 || qs[1].ID != "b" || len(qs[1].MustContain) != 2 || qs[0].Kind != KindParaphrase {
		t.Errorf("loaded %+v", qs)
	}

	for _, tc := range []struct{ name, in, want string }{
		{"bad json", `{"id":"a",`, "line 1"},
		{"not an object", `["a"]`, "line 1"},
		{"two values", `{"id":"a","query":"q","must_contain":["m"],"kind":"keyword"} {}`, "more than one"},
		{"missing id", `{"query":"q","must_contain":["m"],"kind":"keyword"}`, "missing id"},
		{"missing query", `{"id":"a","must_contain":["m"],"kind":"keyword"}`, "missing query"},
		{"missing must_contain", `{"id":"a","query":"q","kind":"keyword"}`, "missing must_contain"},
		{"empty must_contain", `{"id":"a","query":"q","must_contain":[],"kind":"keyword"}`, "missing must_contain"},
		{"blank must_contain", `{"id":"a","query":"q","must_contain":["ok"," "],"kind":"keyword"}`, "must_contain[1] is blank"},
		{"missing kind", `{"id":"a","query":"q","must_contain":["m"]}`, "kind"},
		{"bad kind", `{"id":"a","query":"q","must_contain":["m"],"kind":"semantic"}`, `kind "semantic"`},
		{"unknown field", `{"id":"a","query":"q","must_contain":["m"],"kind":"keyword","answer":"x"}`, "unknown field"},
		{"duplicate id", good + `{"id":"a","query":"q","must_contain":["m"],"kind":"keyword"}`, "line 4: id \"a\" already used on line 1"},
		{"empty", "\n\n", "empty"},
	} {
		_, err := LoadQuestions(strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
}

func TestPrint(t *testing.T) {
	qs, f := tinySet()
	rep, err := Run(context.Background(), f, qs, 1)
	if err != nil {
		t.Fatal(err)
	}
	rep.LatencyP50, rep.LatencyP95 = 12*time.Millisecond, 30*time.Millisecond
	var b bytes.Buffer
	rep.Print(&b)
	out := b.String()
	lines := strings.Split(out, "\n")
	want := []string{
		"kind            n    R@1    R@5   R@10    MRR",
		"keyword         2  0.000  0.000  0.500  0.071",
		"paraphrase      3  0.333  1.000  1.000  0.611",
		"all             5  0.200  0.600  0.800  0.395",
		"latency p50 12ms, p95 30ms",
		"",
		"misses (answer not in the top 5): 2 of 5",
	}
	if len(lines) < len(want) {
		t.Fatalf("output too short:\n%s", out)
	}
	for i, w := range want {
		if lines[i] != w {
			t.Errorf("line %d:\n got %q\nwant %q", i+1, lines[i], w)
		}
	}
	// The worst miss (not found) comes first, then rank 7; each with its top result.
	rest := strings.Join(lines[len(want):], "\n")
	k2, k1 := strings.Index(rest, "rank   -  keyword    k2: q4"), strings.Index(rest, "rank   7  keyword    k1: q3")
	if k2 < 0 || k1 < 0 || k2 > k1 {
		t.Errorf("misses not listed worst first:\n%s", rest)
	}
	if !strings.Contains(rest, `top: "unrelated passage"`) || strings.Count(rest, "top: ") != 2 {
		t.Errorf("misses lack their top results:\n%s", rest)
	}
	for _, id := range []string{"p1", "p2", "p3"} {
		if strings.Contains(rest, " "+id+":") {
			t.Errorf("%s is listed as a miss:\n%s", id, rest)
		}
	}

	js, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	if back["latency_p50_ms"] != 12.0 || back["overall"].(map[string]any)["recall_at_5"] != 0.6 {
		t.Errorf("JSON report: %s", js)
	}
}

func TestHTTPSearcher(t *testing.T) {
	var gotAuth string
	var gotReq map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/tools/rag_search" {
			http.Error(w, `{"detail":"not found"}`, http.StatusNotFound)
			return
		}
		gotAuth = r.Header.Get("Authorization")
		gotReq = nil
		_ = json.NewDecoder(r.Body).Decode(&gotReq)
		if gotReq["query"] == "broken" {
			http.Error(w, `{"detail":"weaviate is down"}`, http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte(`{"query":"q","results":[{"id":"1","text":"first","score":0.9},{"id":"2","text":"second","score":0.5}],"count":2}`))
	}))
	defer srv.Close()

	s := &HTTPSearcher{BaseURL: srv.URL + "/", KBName: "eval", Mode: "keyword", Token: "sekret"}
	texts, err := s.Search(context.Background(), "what is it", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(texts) != 2 || texts[0] != "first" || texts[1] != "second" {
		t.Errorf("texts %q", texts)
	}
	if gotAuth != "Bearer sekret" {
		t.Errorf("Authorization %q", gotAuth)
	}
	if gotReq["query"] != "what is it" || gotReq["top_k"] != 10.0 || gotReq["kb_name"] != "eval" || gotReq["mode"] != "keyword" {
		t.Errorf("request %v", gotReq)
	}
	_, err = s.Search(context.Background(), "broken", 10)
	if err == nil || !strings.Contains(err.Error(), "503") || !strings.Contains(err.Error(), "weaviate is down") {
		t.Errorf("error for a 503: %v", err)
	}

	s = &HTTPSearcher{BaseURL: srv.URL}
	if _, err := s.Search(context.Background(), "x", 5); err != nil {
		t.Fatal(err)
	}
	if gotAuth != "" || gotReq["kb_name"] != nil || gotReq["mode"] != nil {
		t.Errorf("defaults sent: auth %q, request %v", gotAuth, gotReq)
	}
}

func TestHTTPSearcherIndexDirectory(t *testing.T) {
	var polls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/tools/rag_index_directory":
			var body map[string]any
			_ = json.NewDecoder(r.Body).Decode(&body)
			if body["wait"] != true || body["kb_name"] != "eval" {
				http.Error(w, "bad body", http.StatusBadRequest)
				return
			}
			if body["directory_path"] == "/fast" {
				_, _ = w.Write([]byte(`{"status":"success","chunks_indexed":42,"job_id":"j0","files_total":3,"files_failed":0}`))
				return
			}
			w.WriteHeader(http.StatusAccepted)
			if body["directory_path"] == "/stopped" {
				_, _ = w.Write([]byte(`{"job_id":"j2","status":"active"}`))
				return
			}
			_, _ = w.Write([]byte(`{"job_id":"j1","status":"active"}`))
		case r.Method == http.MethodGet && r.URL.Path == "/jobs/j2":
			_, _ = w.Write([]byte(`{"job_id":"j2","status":"cancelled"}`))
		case r.Method == http.MethodGet && r.URL.Path == "/jobs/j1":
			if polls.Add(1) < 2 {
				_, _ = w.Write([]byte(`{"job_id":"j1","status":"active"}`))
				return
			}
			_, _ = w.Write([]byte(`{"job_id":"j1","status":"completed","result":{"files_total":5,"files_failed":1,"chunks_indexed":77}}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	s := &HTTPSearcher{BaseURL: srv.URL, KBName: "eval"}

	idx, err := s.IndexDirectory(context.Background(), "/fast")
	if err != nil || idx.Chunks != 42 || idx.FilesTotal != 3 || idx.JobID != "j0" {
		t.Errorf("fast index: %+v, %v", idx, err)
	}
	idx, err = s.IndexDirectory(context.Background(), "/slow")
	if err == nil || !strings.Contains(err.Error(), "1 of 5 files failed") || idx.Chunks != 77 || polls.Load() != 2 {
		t.Errorf("slow index with a failed file: %+v, %v (polls %d)", idx, err, polls.Load())
	}
	if _, err := s.IndexDirectory(context.Background(), "/stopped"); err == nil || !strings.Contains(err.Error(), "j2 was cancelled") {
		t.Errorf("cancelled index: %v", err)
	}
}

// phrasingsSearcher records the phrasings each question brought.
type phrasingsSearcher struct {
	fakeSearcher
	got sync.Map // query -> queries
}

func (p *phrasingsSearcher) SearchPhrasings(ctx context.Context, query string, queries []string, topK int) ([]string, error) {
	p.got.Store(query, queries)
	return p.answers[query+"+"], nil
}

// A question's other phrasings reach a Searcher that takes them, and
// score its fused answer; a question without them is searched plainly.
func TestRunSendsQuestionPhrasings(t *testing.T) {
	qs := []Question{
		{ID: "a", Query: "plain words", MustContain: []string{"answer a"}, Kind: KindParaphrase, Queries: []string{"other words"}},
		{ID: "b", Query: "just one", MustContain: []string{"answer b"}, Kind: KindKeyword},
	}
	s := &phrasingsSearcher{fakeSearcher: fakeSearcher{answers: map[string][]string{
		"plain words+": with(10, 1, "answer a"), "just one": with(10, 2, "answer b")}}}
	rep, err := Run(context.Background(), s, qs, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := s.got.Load("plain words"); !slices.Equal(got.([]string), []string{"other words"}) {
		t.Errorf("phrasings sent %v", got)
	}
	if _, asked := s.got.Load("just one"); asked || s.calls.Load() != 1 {
		t.Errorf("the question without phrasings went through SearchPhrasings (%v) or Search %d times", asked, s.calls.Load())
	}
	if rep.Overall.Recall1 != 0.5 || rep.Overall.Recall5 != 1 {
		t.Errorf("scores %+v", rep.Overall)
	}
}

func TestHTTPSearcherSendsPhrasings(t *testing.T) {
	var got map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = nil
		_ = json.NewDecoder(r.Body).Decode(&got)
		_, _ = w.Write([]byte(`{"results":[{"text":"t"}],"count":1}`))
	}))
	defer srv.Close()
	s := &HTTPSearcher{BaseURL: srv.URL}
	if _, err := s.SearchPhrasings(context.Background(), "q", []string{"r", "s"}, 5); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got["queries"]) != "[r s]" || got["query"] != "q" {
		t.Errorf("request %v", got)
	}
	if _, err := s.Search(context.Background(), "q", 5); err != nil || got["queries"] != nil {
		t.Errorf("plain search sent queries: %v %v", got, err)
	}
}
