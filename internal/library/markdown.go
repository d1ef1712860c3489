package library

import (
	"encoding/json"
	"strings"
	"time"

	"ragd"
)

// trailSeparator joins the headings of a chunk's path (see ingest.Chunk).
const trailSeparator = " > "

// markdownWriter rebuilds a document's text from its chunks, given in
// chunk_index order: a heading line wherever the heading trail changes, and
// each chunk's body without the sentences it repeats from the chunk before
// (the chunker's overlap, only ever carried within one section).
type markdownWriter struct {
	title  string
	b      strings.Builder
	trail  []string       // headings open after the title, outermost first
	levels map[string]int // level of each trail prefix seen as a chunk's own heading
	prev   *ragd.Chunk
}

func newMarkdownWriter(title string) *markdownWriter {
	w := &markdownWriter{title: title, levels: map[string]int{}}
	if title != "" {
		w.b.WriteString("# " + oneLine(title) + "\n\n")
	}
	return w
}

// add appends one chunk.
func (w *markdownWriter) add(c ragd.Chunk) {
	trail := splitTrail(c.Path)
	if len(trail) > 0 && trail[0] == w.title {
		trail = trail[1:] // the title heads the text already
	}
	if w.prev != nil && c.Path == w.prev.Path {
		body := c.Text
		if n := overlapLen(w.prev.Text, c.Text); n > 0 {
			body = c.Text[n:] // starts with the separator that stood there
		} else {
			body = "\n\n" + body
		}
		w.b.WriteString(body)
	} else {
		if w.prev != nil {
			w.b.WriteString("\n\n")
		}
		w.headings(trail, c.Level)
		w.b.WriteString(c.Text)
	}
	w.trail = trail
	cc := c
	w.prev = &cc
}

// headings writes the headings of trail that are not open yet. The chunk
// says only its deepest heading's level: an outer heading takes the level
// it had as a chunk's own heading, else one less than the heading it holds.
func (w *markdownWriter) headings(trail []string, level int) {
	if len(trail) == 0 {
		return
	}
	key := strings.Join(trail, trailSeparator)
	w.levels[key] = max(level, 1)
	common := 0
	for common < len(trail) && common < len(w.trail) && trail[common] == w.trail[common] {
		common++
	}
	lv := make([]int, len(trail))
	lv[len(trail)-1] = max(level, 1)
	for i := len(trail) - 2; i >= 0; i-- {
		if known, ok := w.levels[strings.Join(trail[:i+1], trailSeparator)]; ok {
			lv[i] = known
		} else {
			lv[i] = max(lv[i+1]-1, 1)
		}
	}
	for i := common; i < len(trail); i++ {
		w.b.WriteString(strings.Repeat("#", min(lv[i], 6)) + " " + oneLine(trail[i]) + "\n\n")
	}
}

func (w *markdownWriter) String() string { return strings.TrimRight(w.b.String(), "\n") + "\n" }

func splitTrail(path string) []string {
	if strings.TrimSpace(path) == "" {
		return nil
	}
	return strings.Split(path, trailSeparator)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// overlapLen is how many leading bytes of next repeat the end of prev as
// the chunker's overlap does: whole trailing sentences of prev (so the
// repeat starts after a space in prev), followed in next by the separator
// of the text that goes on, never all of either. The longest such repeat is
// found with the prefix function of next + "\x00" + prev, whose borders are
// exactly the prefixes of next that end prev.
func overlapLen(prev, next string) int {
	s := next + "\x00" + prev
	pi := make([]int, len(s))
	for i := 1; i < len(s); i++ {
		k := pi[i-1]
		for k > 0 && s[i] != s[k] {
			k = pi[k-1]
		}
		if s[i] == s[k] {
			k++
		}
		pi[i] = k
	}
	for n := pi[len(s)-1]; n > 0; n = pi[n-1] {
		if n < len(prev) && n < len(next) && isSpace(prev[len(prev)-n-1]) && isSpace(next[n]) {
			return n
		}
	}
	return 0
}

func isSpace(b byte) bool { return b == ' ' || b == '\n' || b == '\t' || b == '\r' }

// FrontMatter is a YAML block naming a document's metadata, to open its
// text.
func FrontMatter(d ragd.Document) string {
	tags := d.Tags
	if tags == nil {
		tags = []string{}
	}
	fields := []field{{"title", d.Title}, {"document_id", d.ID}, {"kb_name", d.Namespace}, {"source", d.Source},
		{"source_type", string(d.SourceType)}, {"tags", tags}, {"chunks", d.Chunks}}
	if !d.UpdatedAt.IsZero() {
		fields = append(fields, field{"updated_at", d.UpdatedAt.UTC().Format(time.RFC3339)})
	}
	return frontMatter(fields)
}

// ChunkFrontMatter is FrontMatter for one chunk: where it stands in which
// document.
func ChunkFrontMatter(c ChunkText) string {
	fields := []field{{"chunk_id", c.Chunk.ID}, {"document_id", c.Document.ID}, {"kb_name", c.Document.Namespace},
		{"title", c.Document.Title}, {"source", c.Document.Source}, {"source_type", string(c.Document.SourceType)},
		{"path", c.Chunk.Path}, {"level", c.Chunk.Level}, {"chunk_index", c.Chunk.Index}}
	if c.Chunk.Page > 0 {
		fields = append(fields, field{"page", c.Chunk.Page})
	}
	if c.Chunk.OCR {
		fields = append(fields, field{"ocr", true})
	}
	return frontMatter(fields)
}

type field struct {
	name  string
	value any
}

// frontMatter writes every value as JSON (a string, number, boolean or
// list), which YAML reads as is.
func frontMatter(fields []field) string {
	var b strings.Builder
	b.WriteString("---\n")
	for _, f := range fields {
		raw, _ := json.Marshal(f.value)
		b.WriteString(f.name + ": " + string(raw) + "\n")
	}
	b.WriteString("---\n\n")
	return b.String()
}
