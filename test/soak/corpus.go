package soak

import (
	"fmt"
	"html"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"

	"ragd/internal/testkit/testenv"
)

// Corpus is a pool of real paragraphs (Go's own documentation) the soak
// builds its documents from, and the queries it searches with.
type Corpus struct {
	paragraphs []string
}

// Queries are what the searches ask: words the Go documents contain.
var Queries = []string{
	"happens before", "channel send and receive", "goroutine creation", "method sets of interface types",
	"type assertion", "composite literal", "GODEBUG setting", "assembler directives", "memory model data race",
	"select statement", "slice expressions", "constant expressions", "package initialization order",
	"struct tags", "defer statements", "unsafe pointer conversion", "runtime finalizers", "label scopes",
}

var (
	tagRE   = regexp.MustCompile(`(?s)<[^>]*>`)
	spaceRE = regexp.MustCompile(`\s+`)
)

// LoadCorpus reads the paragraphs of GOROOT/doc's HTML and Markdown files.
func LoadCorpus() (*Corpus, error) {
	dir := filepath.Join(runtime.GOROOT(), "doc")
	c := &Corpus{}
	for _, name := range []string{"go_spec.html", "go_mem.html", "asm.html", "godebug.md"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("corpus: %w", err)
		}
		for _, p := range regexp.MustCompile(`\n\s*\n|<p>`).Split(string(b), -1) {
			p = strings.TrimSpace(spaceRE.ReplaceAllString(html.UnescapeString(tagRE.ReplaceAllString(p, " ")), " "))
			if len(p) >= 200 && len(p) <= 2000 {
				c.paragraphs = append(c.paragraphs, p)
			}
		}
	}
	if len(c.paragraphs) < 50 {
		return nil, fmt.Errorf("corpus: only %d paragraphs in %s", len(c.paragraphs), dir)
	}
	return c, nil
}

// Paragraphs are n paragraphs drawn with rng.
func (c *Corpus) Paragraphs(rng *rand.Rand, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = c.paragraphs[rng.IntN(len(c.paragraphs))]
	}
	return out
}

// Upload is one file of the soak's uploads: version changes its content.
func (c *Corpus) Upload(rng *rand.Rand, name string, version int) []byte {
	ps := c.Paragraphs(rng, 3+rng.IntN(8))
	marker := fmt.Sprintf("Revision %d of %s.", version, name)
	switch filepath.Ext(name) {
	case ".html":
		return []byte("<html><head><title>" + name + "</title></head><body><h1>" + name + "</h1><p>" + marker + "</p><p>" +
			strings.Join(escapeAll(ps), "</p>\n<h2>Section</h2><p>") + "</p></body></html>")
	case ".pdf":
		text := strings.NewReplacer("(", " ", ")", " ", `\`, " ").Replace(marker + " " + ps[0])
		return testenv.OnePagePDF("<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			testenv.TextStream("BT /F1 10 Tf 72 720 Td ("+text+") Tj ET"))
	case ".md":
		return []byte("# " + name + "\n\n" + marker + "\n\n## Part\n\n" + strings.Join(ps, "\n\n## Part\n\n") + "\n")
	default:
		return []byte(marker + "\n\n" + strings.Join(ps, "\n\n") + "\n")
	}
}

func escapeAll(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = html.EscapeString(p)
	}
	return out
}
