package ingest

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"ragd"
	"ragd/internal/ingest/document"
)

func para(s string) document.Block { return document.Block{Kind: document.BlockParagraph, Text: s} }
func head(l int, s string) document.Block {
	return document.Block{Kind: document.BlockHeading, Level: l, Text: s}
}
func item(s string) document.Block {
	return document.Block{Kind: document.BlockListItem, Text: "- " + s}
}
func code(s string) document.Block { return document.Block{Kind: document.BlockCode, Text: s} }
func doc(title string, b ...document.Block) *document.Loaded {
	return &document.Loaded{Title: title, SourceType: ragd.SourceMarkdown, Blocks: b}
}

// words returns a sentence of n distinct words (tag0 tag1 …) ending in a full
// stop, so tests can count tokens exactly: n words + 1 period.
func words(tag string, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = fmt.Sprintf("%s%d", tag, i)
	}
	s := strings.Join(w, " ") + "."
	return strings.ToUpper(s[:1]) + s[1:]
}

func TestChunkPathsAndLevels(t *testing.T) {
	d := doc("Manual",
		para("Intro text for everyone."),
		head(1, "Install"),
		para("Install it."),
		head(2, "Linux"),
		para("Use apt."),
		head(2, "macOS"),
		para("Use brew."),
		head(1, "Usage"),
		head(2, "Flags"), // no body: no chunk
		head(3, "Verbose"),
		para("Say more."),
	)
	got := Chunk(d, ChunkOptions{})
	type pl struct {
		Path  string
		Level int
		Text  string
	}
	var have []pl
	for _, p := range got {
		have = append(have, pl{p.Path, p.Level, p.Text})
	}
	want := []pl{
		{"Manual", 0, "Intro text for everyone."},
		{"Manual > Install", 1, "Install it."},
		{"Manual > Install > Linux", 2, "Use apt."},
		{"Manual > Install > macOS", 2, "Use brew."},
		{"Manual > Usage > Flags > Verbose", 3, "Say more."},
	}
	if !reflect.DeepEqual(have, want) {
		t.Fatalf("pieces:\n got %+v\nwant %+v", have, want)
	}
	if s := got[2].Summary; s != "Linux: Use apt." {
		t.Errorf("summary = %q", s)
	}
	if s := got[0].Summary; s != "Manual: Intro text for everyone." {
		t.Errorf("summary without heading = %q", s)
	}
}

func TestChunkTitleEqualToFirstHeadingIsNotRepeated(t *testing.T) {
	d := doc("Guide", head(1, "Guide"), para("Top."), head(2, "Part"), para("Body."), head(1, "Appendix"), para("More."))
	var paths []string
	for _, p := range Chunk(d, ChunkOptions{}) {
		paths = append(paths, p.Path)
	}
	want := []string{"Guide", "Guide > Part", "Guide > Appendix"}
	if !reflect.DeepEqual(paths, want) {
		t.Errorf("paths = %q, want %q", paths, want)
	}
}

func TestChunkNeverSpansAHeading(t *testing.T) {
	var blocks []document.Block
	for s := 0; s < 6; s++ {
		blocks = append(blocks, head(2, fmt.Sprintf("Section %d", s)))
		for p := 0; p < s+1; p++ { // sections of growing length
			blocks = append(blocks, para(words(fmt.Sprintf("s%dp%dw", s, p), 25)))
		}
	}
	pieces := Chunk(doc("Doc", blocks...), ChunkOptions{Tokens: 60, Overlap: 10})
	seen := map[string]bool{}
	for _, p := range pieces {
		sec := p.Path[strings.LastIndex(p.Path, "Section ")+len("Section "):]
		seen[sec] = true
		for _, w := range strings.Fields(p.Text) {
			if !strings.HasPrefix(strings.ToLower(w), "s"+sec+"p") {
				t.Fatalf("piece of section %s holds %q from another section: %q", sec, w, p.Text)
			}
		}
	}
	if len(seen) != 6 {
		t.Errorf("sections with pieces: %v", seen)
	}
}

func TestChunkRespectsSizeLimit(t *testing.T) {
	long := strings.Repeat("word ", 700) // one sentence far over any limit
	docs := map[string]*document.Loaded{
		"synthetic": doc("S",
			head(1, "A"), para(words("a", 40)+" "+words("b", 40)+" "+words("c", 40)),
			para(long), item(words("d", 8)), code("x := 1\ny := 2"),
			head(2, "B"), para("Short one."), para(words("e", 300))),
		"godebug.md":  mustParseFile(t, gorootFile(t, "doc/godebug.md"), ragd.SourceMarkdown),
		"go_mem.html": mustParseFile(t, gorootFile(t, "doc/go_mem.html"), ragd.SourceHTML),
	}
	for name, d := range docs {
		for _, opt := range []ChunkOptions{{Tokens: 16, Overlap: 4}, {Tokens: 50}, {Tokens: 128, Overlap: 40}, {}} {
			limit := opt.Tokens
			if limit == 0 {
				limit = DefaultChunkTokens
			}
			pieces := Chunk(d, opt)
			if len(pieces) == 0 {
				t.Fatalf("%s: no pieces", name)
			}
			for _, p := range pieces {
				if n := CountTokens(p.Text); n > limit || n == 0 {
					t.Fatalf("%s %+v: piece of %d tokens (limit %d): %.80q", name, opt, n, limit, p.Text)
				}
				if utf8.RuneCountInString(p.Summary) > 200 {
					t.Fatalf("%s: summary of %d runes", name, utf8.RuneCountInString(p.Summary))
				}
			}
		}
	}
}

func TestChunkOverlapPresentAndBounded(t *testing.T) {
	var sentences []string
	for i := 0; i < 40; i++ {
		sentences = append(sentences, words(fmt.Sprintf("n%d", i), 5+i%4)) // 6..9 tokens each
	}
	d := doc("T", head(1, "Only"), para(strings.Join(sentences[:20], " ")), para(strings.Join(sentences[20:], " ")))
	const overlap = 20
	pieces := Chunk(d, ChunkOptions{Tokens: 60, Overlap: overlap})
	if len(pieces) < 4 {
		t.Fatalf("want several pieces, got %d", len(pieces))
	}
	for i := 1; i < len(pieces); i++ {
		prev, cur := pieces[i-1].Text, pieces[i].Text
		// the longest suffix of prev that starts cur
		shared := ""
		for _, sp := range sentenceSpans(prev) {
			if strings.HasPrefix(cur, prev[sp.start:]) {
				shared = prev[sp.start:]
				break
			}
		}
		if shared == "" {
			t.Fatalf("piece %d does not start with the tail of piece %d:\n%q\n%q", i, i-1, prev, cur)
		}
		if n := CountTokens(shared); n > overlap {
			t.Errorf("overlap of %d tokens > %d", n, overlap)
		}
		if shared == prev {
			t.Errorf("piece %d repeats all of piece %d", i, i-1)
		}
		if !strings.HasSuffix(shared, ".") {
			t.Errorf("overlap %q is not whole sentences", shared)
		}
	}

	// no overlap when disabled, and never across sections
	off := Chunk(d, ChunkOptions{Tokens: 60, Overlap: -1})
	for i := 1; i < len(off); i++ {
		last := sentenceSpans(off[i-1].Text)
		tail := off[i-1].Text[last[len(last)-1].start:]
		if strings.HasPrefix(off[i].Text, tail) {
			t.Errorf("overlap present with Overlap<0: %q", tail)
		}
	}
	two := Chunk(doc("T", head(1, "A"), para(words("a", 30)+" "+words("b", 5)), head(1, "B"), para(words("c", 5))), ChunkOptions{Tokens: 60, Overlap: 20})
	if got := two[len(two)-1].Text; got != words("c", 5) {
		t.Errorf("overlap crossed a heading: %q", got)
	}
}

func TestChunkKeepsListWithLeadParagraph(t *testing.T) {
	lead := "The rules are:"
	d := doc("T", head(1, "Rules"),
		para(words("filler", 40)),
		para(lead),
		item(words("first", 9)), item(words("second", 9)), item(words("third", 9)),
		para(words("after", 10)),
	)
	// filler (41) + lead (4) would fit 60, the list after them would not
	pieces := Chunk(d, ChunkOptions{Tokens: 60, Overlap: -1})
	var with *Piece
	for i := range pieces {
		if strings.Contains(pieces[i].Text, lead) {
			with = &pieces[i]
		}
	}
	if with == nil {
		t.Fatal("lead paragraph lost")
	}
	for _, w := range []string{"First0", "Second0", "Third0"} {
		if !strings.Contains(with.Text, w) {
			t.Errorf("list item %s not with its lead paragraph: %q", w, with.Text)
		}
	}
	if !strings.Contains(with.Text, lead+"\n\n- First0") || !strings.Contains(with.Text, "first8.\n- Second0") {
		t.Errorf("list layout: %q", with.Text)
	}
	if strings.Contains(with.Text, "Filler0") {
		t.Errorf("lead should have moved away from the filler: %q", with.Text)
	}

	// the overlap carried into the chunk must not push a list out of it
	d = doc("T", head(1, "Rules"),
		para(words("a", 4)+" "+words("b", 4)),
		para(lead),
		item(words("first", 10)), item(words("second", 10)), item(words("third", 10)), item(words("fourth", 10)),
	)
	// lead + items = 52 fit 55 alone, but not after the 5-token overlap
	pieces = Chunk(d, ChunkOptions{Tokens: 55, Overlap: 20})
	if last := pieces[len(pieces)-1].Text; !strings.HasPrefix(last, lead) || !strings.Contains(last, "Fourth0") {
		t.Errorf("list split by the overlap: %q", last)
	}

	// a code example stays with its rule too
	d = doc("T", head(1, "X"), para(words("filler", 45)), para("Always quote variables:"), code(`echo "$x"`))
	pieces = Chunk(d, ChunkOptions{Tokens: 52, Overlap: -1}) // filler (46) + rule (4) fit, + example (5) not
	last := pieces[len(pieces)-1].Text
	if last != "Always quote variables:\n\necho \"$x\"" {
		t.Errorf("rule and example split: %+v", pieces)
	}
}

func TestChunkSplitsLongParagraphAndSentence(t *testing.T) {
	s1, s2, s3 := words("alpha", 20), words("beta", 20), words("gamma", 20)
	d := doc("T", para(s1+" "+s2+" "+s3))
	pieces := Chunk(d, ChunkOptions{Tokens: 30, Overlap: -1})
	var texts []string
	for _, p := range pieces {
		texts = append(texts, p.Text)
	}
	if want := []string{s1, s2, s3}; !reflect.DeepEqual(texts, want) {
		t.Errorf("sentence split:\n got %q\nwant %q", texts, want)
	}

	var ws []string
	for i := 0; i < 100; i++ {
		ws = append(ws, fmt.Sprintf("w%d", i))
	}
	long := strings.Join(ws, " ")
	pieces = Chunk(doc("T", para(long)), ChunkOptions{Tokens: 30, Overlap: -1})
	if len(pieces) != 4 {
		t.Fatalf("100-token sentence in 30-token chunks: %d pieces", len(pieces))
	}
	var back []string
	for _, p := range pieces {
		if n := CountTokens(p.Text); n > 30 {
			t.Errorf("piece of %d tokens", n)
		}
		back = append(back, p.Text)
	}
	if strings.Join(back, " ") != long {
		t.Errorf("token split lost or reordered words: %q", back)
	}
}

func TestChunkDeterministic(t *testing.T) {
	data := readFixture(t, gorootFile(t, "doc/godebug.md"))
	a, err := Parse(data, ragd.SourceMarkdown, "godebug.md")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Parse(append([]byte(nil), data...), ragd.SourceMarkdown, "godebug.md")
	opt := ChunkOptions{Tokens: 80, Overlap: 16}
	pa, pb := Chunk(a, opt), Chunk(b, opt)
	if !reflect.DeepEqual(pa, pb) {
		t.Fatal("two runs differ")
	}
	if a.NormalizedText() != b.NormalizedText() {
		t.Fatal("normalized text differs")
	}
}

func TestChunkEmptyAndHeadingOnly(t *testing.T) {
	if p := Chunk(doc("T"), ChunkOptions{}); len(p) != 0 {
		t.Errorf("empty doc: %v", p)
	}
	if p := Chunk(doc("T", head(1, "A"), head(2, "B")), ChunkOptions{}); len(p) != 0 {
		t.Errorf("headings only: %v", p)
	}
	if p := Chunk(doc("T", para("  "), para("")), ChunkOptions{}); len(p) != 0 {
		t.Errorf("blank paragraphs: %v", p)
	}
}

func TestChunkPageIsFirstBlockPage(t *testing.T) {
	d := &document.Loaded{Title: "P", Blocks: []document.Block{
		{Kind: document.BlockParagraph, Text: words("p1a", 20), Page: 1},
		{Kind: document.BlockParagraph, Text: words("p2a", 20), Page: 2},
		{Kind: document.BlockParagraph, Text: words("p3a", 20), Page: 3},
	}}
	pieces := Chunk(d, ChunkOptions{Tokens: 25, Overlap: -1})
	for i, p := range pieces {
		if p.Page != i+1 {
			t.Errorf("piece %d page %d", i, p.Page)
		}
	}
}

// A chunk is marked OCR when any of its text, overlap included, was read
// by OCR: pages 1 and 3 are typed, page 2 scanned.
func TestChunkOCRMark(t *testing.T) {
	var blocks []document.Block
	ocrText := map[string]bool{}
	for page := 1; page <= 3; page++ {
		for i := 0; i < 3; i++ {
			text := words(fmt.Sprintf("p%ds%d", page, i), 8) + " " + words(fmt.Sprintf("p%dt%d", page, i), 8)
			blocks = append(blocks, document.Block{Kind: document.BlockParagraph, Text: text, Page: page, OCR: page == 2})
			if page == 2 {
				ocrText[words(fmt.Sprintf("p%ds%d", page, i), 8)], ocrText[words(fmt.Sprintf("p%dt%d", page, i), 8)] = true, true
			}
		}
	}
	pieces := Chunk(&document.Loaded{Title: "Scan", Blocks: blocks}, ChunkOptions{Tokens: 30, Overlap: 10})
	var marked, overlapOnly int
	for i, p := range pieces {
		want := false
		for sentence := range ocrText {
			want = want || strings.Contains(p.Text, sentence)
		}
		if p.OCR != want {
			t.Errorf("piece %d (page %d) OCR %v, want %v: %q", i, p.Page, p.OCR, want, p.Text)
		}
		if want {
			marked++
			if strings.Contains(p.Text, "P3s0") {
				overlapOnly++ // page 3's first chunk opens with page 2's last sentence
			}
		}
	}
	if marked == 0 || marked == len(pieces) || overlapOnly == 0 {
		t.Fatalf("%d of %d pieces marked, %d typed ones by overlap: the test does not exercise the mark", marked, len(pieces), overlapOnly)
	}
}

func TestSummaryIsBounded(t *testing.T) {
	s := summarize("Heading", strings.Repeat("longword ", 60)+".")
	if n := utf8.RuneCountInString(s); n > 200 || !strings.HasPrefix(s, "Heading: ") || !strings.HasSuffix(s, "…") {
		t.Errorf("summary (%d runes): %q", n, s)
	}
}

func mustParseFile(t *testing.T, path string, typ ragd.SourceType) *document.Loaded {
	t.Helper()
	l, err := Parse(readFixture(t, path), typ, path)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// No chunk's text is longer than ragd.MaxChunkTextBytes, the bound an
// import holds archives to: a run no sentence or token boundary cuts (a
// 1 MiB "word", two words of 200 KiB) is cut at it, at a space when
// there is one, and the parts together are the whole run.
func TestChunkTextIsBounded(t *testing.T) {
	word := strings.Repeat("é", 1<<19) // 1 MiB, one token
	two := strings.Repeat("a", 200<<10) + " " + strings.Repeat("b", 200<<10)
	for _, d := range []*document.Loaded{doc("Word", para(word)), doc("Two", code(two))} {
		pieces := Chunk(d, ChunkOptions{})
		var all strings.Builder
		for i, p := range pieces {
			if len(p.Text) > ragd.MaxChunkTextBytes || !utf8.ValidString(p.Text) {
				t.Fatalf("%s: chunk %d of %d bytes, over %d or invalid UTF-8", d.Title, i, len(p.Text), ragd.MaxChunkTextBytes)
			}
			all.WriteString(p.Text)
		}
		if want := d.Blocks[0].Text; all.String() != want {
			t.Fatalf("%s: the parts hold %d bytes of the %d", d.Title, all.Len(), len(want))
		}
	}
}
