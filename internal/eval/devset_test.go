package eval

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"ragd"
	"ragd/internal/ingest"
)

const devsetPath = "testdata/devset.jsonl"

// goroot is the GOROOT of the go command running the tests.
func goroot(t *testing.T) string {
	t.Helper()
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		if s := strings.TrimSpace(string(out)); s != "" {
			return s
		}
	}
	if r := runtime.GOROOT(); r != "" {
		return r
	}
	t.Skip("no GOROOT: neither `go env GOROOT` nor runtime.GOROOT() answers")
	return ""
}

// corpusDoc is one generated document as the checks see it.
type corpusDoc struct {
	pkg    string
	doc    string   // folded package doc comment
	text   string   // folded text the Markdown loader extracts
	chunks []string // folded chunks at the default chunk options
}

func buildTestCorpus(t *testing.T) []corpusDoc {
	t.Helper()
	root := goroot(t)
	dir := t.TempDir()
	paths, err := BuildCorpus(root, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != len(CorpusPackages) {
		t.Fatalf("BuildCorpus wrote %d files, want %d", len(paths), len(CorpusPackages))
	}
	var docs []corpusDoc
	for i, p := range paths {
		pkg := CorpusPackages[i]
		if filepath.Base(p) != CorpusFileName(pkg) {
			t.Fatalf("file %d is %s, want %s", i, filepath.Base(p), CorpusFileName(pkg))
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(data), "# Package "+pkg+"\n\n") {
			t.Errorf("%s does not start with its heading: %.60q", p, data)
		}
		raw, err := PackageDoc(root, pkg)
		if err != nil {
			t.Fatal(err)
		}
		loaded, err := ingest.Parse(data, ragd.SourceMarkdown, filepath.Base(p))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		var text []string
		for _, b := range loaded.Blocks {
			text = append(text, b.Text)
		}
		d := corpusDoc{pkg: pkg, doc: Fold(raw), text: Fold(strings.Join(text, "\n"))}
		for _, c := range ingest.Chunk(loaded, ingest.ChunkOptions{}) {
			d.chunks = append(d.chunks, Fold(c.Text))
		}
		docs = append(docs, d)
	}
	return docs
}

// TestDevsetSubstringsExist guards the development set against drift of
// the Go release it is built from: every must_contain string must occur in
// exactly one corpus document, both in the doc comment and in the text
// ragd's Markdown loader extracts from the generated file; a question's
// strings must all come from one document, and at least one of them must
// fit inside a single chunk, or no search could ever hit.
func TestDevsetSubstringsExist(t *testing.T) {
	f, err := os.Open(devsetPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	qs, err := LoadQuestions(f)
	if err != nil {
		t.Fatal(err)
	}
	docs := buildTestCorpus(t)

	kinds := map[string]int{}
	perPkg := map[string]int{}
	for _, q := range qs {
		kinds[q.Kind]++
		if n := len(q.MustContain); n < 1 || n > 3 {
			t.Errorf("%s: %d must_contain strings, want 1 to 3", q.ID, n)
		}
		home := ""
		inChunk := false
		for _, s := range q.MustContain {
			if n := len([]rune(s)); n < 10 || n > 80 {
				t.Errorf("%s: must_contain %q is %d characters, want 10 to 80", q.ID, s, n)
			}
			fs := Fold(s)
			var found []string
			for _, d := range docs {
				inDoc, inText := strings.Contains(d.doc, fs), strings.Contains(d.text, fs)
				if inDoc != inText {
					t.Errorf("%s: %q is in the %s doc comment: %v, in the loaded Markdown: %v", q.ID, s, d.pkg, inDoc, inText)
				}
				if !inDoc && !inText {
					continue
				}
				found = append(found, d.pkg)
				for _, c := range d.chunks {
					inChunk = inChunk || strings.Contains(c, fs)
				}
			}
			switch {
			case len(found) == 0:
				t.Errorf("%s: must_contain %q occurs in no corpus document", q.ID, s)
			case len(found) > 1:
				t.Errorf("%s: must_contain %q occurs in several documents %v: not specific enough", q.ID, s, found)
			case home == "":
				home = found[0]
			case home != found[0]:
				t.Errorf("%s: must_contain strings come from %s and %s", q.ID, home, found[0])
			}
		}
		if home != "" && !inChunk {
			t.Errorf("%s: no must_contain string fits inside one chunk of %s", q.ID, home)
		}
		perPkg[home]++
	}
	if len(qs) < 90 {
		t.Errorf("%d questions, want at least 90", len(qs))
	}
	if p := kinds[KindParaphrase]; 3*p < 2*len(qs) {
		t.Errorf("%d of %d questions are paraphrases, want at least two thirds", p, len(qs))
	}
	if len(perPkg) < 30 {
		t.Errorf("questions cover %d packages, want at least 30", len(perPkg))
	}
	t.Logf("%d questions (%d paraphrase, %d keyword) over %d packages", len(qs), kinds[KindParaphrase], kinds[KindKeyword], len(perPkg))
}

// TestBuildCorpusDeterministic: two builds give the same bytes, and doc
// comment headings become level-2 headings.
func TestBuildCorpusDeterministic(t *testing.T) {
	root := goroot(t)
	a, b := t.TempDir(), t.TempDir()
	pa, err := BuildCorpus(root, a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := BuildCorpus(root, b); err != nil {
		t.Fatal(err)
	}
	for _, p := range pa {
		x, _ := os.ReadFile(p)
		y, _ := os.ReadFile(filepath.Join(b, filepath.Base(p)))
		if string(x) != string(y) {
			t.Errorf("%s differs between two builds", filepath.Base(p))
		}
	}
	md, err := os.ReadFile(filepath.Join(a, CorpusFileName("encoding/json")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "\n## Security Considerations") {
		t.Errorf("encoding/json: the doc heading is not a level-2 heading:\n%s", md)
	}
	if strings.Count(string(md), "\n# ") != 0 || !strings.HasPrefix(string(md), "# Package encoding/json\n") {
		t.Errorf("encoding/json: want exactly one level-1 heading, the title:\n%.200s", md)
	}
	md, err = os.ReadFile(filepath.Join(a, CorpusFileName("strconv")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "\n\ti, err := strconv.Atoi(\"-42\")\n") {
		t.Errorf("strconv: the code block is not kept indented:\n%s", md)
	}
	if _, err := BuildCorpus(root, filepath.Join(a, CorpusFileName("strconv"), "sub")); err == nil {
		t.Error("BuildCorpus into a path under a file: no error")
	}
	if _, err := PackageMarkdown(root, "no/such/package"); err == nil {
		t.Error("PackageMarkdown of a missing package: no error")
	}
}
