package eval

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"ragd"
	"ragd/internal/ingest"
)

// loadSet reads eval/testdata/corpora/<name>.jsonl.
func loadSet(t *testing.T, name string) []Question {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "corpora", name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	qs, err := LoadQuestions(f)
	if err != nil {
		t.Fatal(err)
	}
	return qs
}

// buildChunks builds a corpus and chunks it as ragd would at the default
// chunk size, skipping the test when the corpus's source is not here.
func buildChunks(t *testing.T, c Corpus) *Chunks {
	t.Helper()
	src := Sources{GOROOT: goroot(t), GOMODCACHE: goEnvT(t, "GOMODCACHE"), NpmDirs: DefaultNpmDirs}
	dir := t.TempDir()
	if err := c.Build(src, dir); err != nil {
		if slices.Contains([]string{"gomod", "moddocs"}, c.Name) {
			// make test downloads these (install_corpus_modules): a
			// version fallen out of step with the list must not pass.
			t.Fatalf("corpus %s: %v (go mod download $(go run ./internal/eval/cmd/evalsuite modules))", c.Name, err)
		}
		t.Skipf("corpus %s not buildable here: %v", c.Name, err)
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*"))
	var cs []Chunk
	for _, p := range names {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := ingest.Parse(data, ragd.SourceMarkdown, filepath.Base(p))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for i, ch := range ingest.Chunk(doc, ingest.ChunkOptions{}) {
			cs = append(cs, Chunk{ID: p + "#" + string(rune('a'+i%26)) + strings.Repeat("x", i/26), DocumentID: p,
				Source: "file://" + p, Index: i, Text: ch.Text, Path: ch.Path})
		}
	}
	return NewChunks(cs)
}

func goEnvT(t *testing.T, name string) string {
	t.Helper()
	if v := os.Getenv(name); v != "" {
		return v
	}
	out, err := execGo("env", name)
	if err != nil {
		t.Skipf("go env %s: %v", name, err)
	}
	return out
}

// TestCorporaSets guards every corpus's question set: at least 50
// questions, kinds within 45–55 %, each with a doc and an alt form, both
// splits used, and every quote found in a chunk of its own doc as ragd's
// Markdown loader and chunker cut it (else no search could ever hit).
func TestCorporaSets(t *testing.T) {
	for _, c := range Corpora {
		t.Run(c.Name, func(t *testing.T) {
			qs := loadSet(t, c.Name)
			if len(qs) < 50 {
				t.Errorf("%d questions, want at least 50", len(qs))
			}
			kinds, splits := map[string]int{}, map[string]int{}
			sp := Splits(qs)
			for _, q := range qs {
				kinds[q.Kind]++
				splits[sp[q.ID]]++
				if q.Doc == "" || q.Alt == "" {
					t.Errorf("%s: doc %q, alt %q: want both", q.ID, q.Doc, q.Alt)
				}
			}
			if p := kinds[KindParaphrase]; p*100 < 45*len(qs) || p*100 > 55*len(qs) {
				t.Errorf("%d of %d paraphrased, want about half", p, len(qs))
			}
			if splits[SplitDev] < len(qs)/3 || splits[SplitTest] < len(qs)/3 {
				t.Errorf("splits %v: want roughly half each", splits)
			}
			if _, err := AnswerDocs(qs, buildChunks(t, c), true); err != nil {
				t.Error(err)
			}
			t.Logf("%d questions %v %v", len(qs), kinds, splits)
		})
	}
}
