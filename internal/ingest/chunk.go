package ingest

import (
	"strings"
	"unicode/utf8"

	"ragd"
	"ragd/internal/ingest/document"
)

// ChunkOptions sizes chunks. Zero values take the defaults.
type ChunkOptions struct {
	Tokens  int // target maximum tokens per chunk (CountTokens); default DefaultChunkTokens
	Overlap int // tokens of trailing sentences repeated in the next chunk of a section; default 32, negative for none
}

// The chunk size defaults.
const (
	DefaultChunkTokens  = 384
	DefaultChunkOverlap = 32
)

// maxSummaryRunes bounds Piece.Summary.
const maxSummaryRunes = 200

// Piece is one chunk of a document, ready to embed.
type Piece struct {
	Text    string // the chunk's text, body only (the heading trail is in Path)
	Path    string // heading trail, "Title > Section > Subsection"
	Level   int    // level of the deepest heading in Path, 0 if none
	Summary string // heading + first sentence, at most 200 runes
	Page    int    // page of the chunk's first block (PDF), 0 otherwise
	OCR     bool   // some of the text was read by OCR from a scanned page
}

// Chunk splits a loaded document into pieces along its structure: a heading
// always starts a new chunk, paragraphs of a section are packed up to
// opt.Tokens, long paragraphs are split at sentences and overlong sentences
// at tokens, a list, code block or table stays with the paragraph that
// introduces it when they fit, and a section that continues into another
// chunk repeats its last sentences (up to opt.Overlap tokens) there. The
// output is a pure function of doc and opt.
func Chunk(doc *document.Loaded, opt ChunkOptions) []Piece {
	return newChunker(doc, opt, 0).run(doc)
}

// newChunker is the chunker of doc with opt's defaults filled in; with
// maxChunks > 0 it stops once it has made more pieces than that.
func newChunker(doc *document.Loaded, opt ChunkOptions, maxChunks int) *chunker {
	if opt.Tokens <= 0 {
		opt.Tokens = DefaultChunkTokens
	}
	switch {
	case opt.Overlap == 0:
		opt.Overlap = DefaultChunkOverlap
	case opt.Overlap < 0:
		opt.Overlap = 0
	}
	// an overlap as large as the chunk would leave no room for new text
	opt.Overlap = min(opt.Overlap, opt.Tokens/2)
	return &chunker{opt: opt, title: doc.Title, max: maxChunks}
}

// run chunks doc's blocks, section by section, until done or full.
func (c *chunker) run(doc *document.Loaded) []Piece {
	var body []document.Block
	for _, b := range doc.Blocks {
		if c.full() {
			return c.out
		}
		if b.Kind != document.BlockHeading {
			body = append(body, b)
			continue
		}
		c.section(body)
		body = body[:0]
		c.push(b)
	}
	c.section(body)
	return c.out
}

// full reports whether the chunker has passed its bound of pieces.
func (c *chunker) full() bool { return c.max > 0 && len(c.out) > c.max }

// segment is a run of text inside a chunk: a block, a piece of a split
// block, or the overlap carried over from the previous chunk.
type segment struct {
	text    string
	kind    document.BlockKind
	page    int
	ocr     bool // read by OCR
	tokens  int
	cont    bool   // a later piece of a split block, joined to the previous piece by sep
	sep     string // with cont, the whitespace that stood before it ("", " " or "\n")
	overlap bool
}

type chunker struct {
	opt   ChunkOptions
	title string
	max   int              // pieces past which it stops (full), 0 for no bound
	stack []document.Block // open headings, outermost first
	out   []Piece

	cur       []segment
	curTokens int
	carry     *carry // overlap pending for the next chunk of this section
	// reserve is the room the next additions need together (a group kept
	// whole), so the carried overlap cannot push part of them out.
	reserve int
}

// carry is the tail of an emitted chunk: starts[i] is where its i-th
// trailing sentence begins (longest suffix first) and tokens[i] the tokens
// from there to the end.
type carry struct {
	text   string
	starts []int
	tokens []int
	pages  []int
	ocr    []bool // whether the text from starts[i] on holds OCR'd text
	kind   document.BlockKind
}

func (c *chunker) push(h document.Block) {
	level := max(h.Level, 1)
	for len(c.stack) > 0 && c.stack[len(c.stack)-1].Level >= level {
		c.stack = c.stack[:len(c.stack)-1]
	}
	h.Level = level
	c.stack = append(c.stack, h)
}

// section packs the body blocks of one section.
func (c *chunker) section(blocks []document.Block) {
	for _, g := range groupBlocks(blocks) {
		if c.full() {
			return
		}
		c.addGroup(g)
	}
	c.emit(false)
	c.carry = nil
}

// groupBlocks attaches list items, code blocks and table rows to the
// paragraph before them: a rule stays with its examples.
func groupBlocks(blocks []document.Block) [][]segment {
	var groups [][]segment
	for _, b := range blocks {
		s := segment{text: b.Text, kind: b.Kind, page: b.Page, ocr: b.OCR, tokens: CountTokens(b.Text)}
		if s.tokens == 0 {
			continue
		}
		follower := b.Kind == document.BlockListItem || b.Kind == document.BlockCode || b.Kind == document.BlockTable
		if follower && len(groups) > 0 {
			groups[len(groups)-1] = append(groups[len(groups)-1], s)
			continue
		}
		groups = append(groups, []segment{s})
	}
	return groups
}

func (c *chunker) addGroup(g []segment) {
	total := 0
	for _, s := range g {
		total += s.tokens
	}
	limit := c.opt.Tokens
	switch {
	case c.curTokens+total <= limit:
	case total <= limit:
		c.emit(true) // the whole group fits a chunk of its own
		c.reserve = total
	case len(g) > 1 && c.curTokens+g[0].tokens+g[1].tokens > limit && g[0].tokens+g[1].tokens <= limit:
		c.emit(true) // too big to keep whole: keep the lead with its first item at least
		c.reserve = g[0].tokens + g[1].tokens
	}
	for _, s := range g {
		if c.full() {
			return
		}
		c.addSegment(s)
	}
}

// addSegment adds one block, starting a new chunk when it does not fit and
// splitting it when it exceeds a chunk on its own.
func (c *chunker) addSegment(s segment) {
	limit := c.opt.Tokens
	if c.curTokens+s.tokens <= limit {
		c.append(s)
		return
	}
	if s.tokens <= limit {
		c.emit(true)
		c.append(s)
		return
	}
	splitSegment(s, limit, func(p segment) bool {
		if c.curTokens+p.tokens > limit {
			c.emit(true)
		}
		c.append(p)
		return !c.full()
	})
}

// append adds s to the current chunk; the first segment of a continued
// section is preceded by as much of the carried overlap as fits.
func (c *chunker) append(s segment) {
	if len(c.cur) == 0 && c.carry != nil {
		k := c.carry
		need := max(s.tokens, c.reserve)
		for i := range k.starts {
			if k.tokens[i]+need <= c.opt.Tokens {
				c.cur = append(c.cur, segment{text: k.text[k.starts[i]:], kind: k.kind, page: k.pages[i], ocr: k.ocr[i], tokens: k.tokens[i], overlap: true})
				c.curTokens = k.tokens[i]
				break
			}
		}
		c.carry = nil
	}
	c.reserve = 0
	c.cur = append(c.cur, s)
	c.curTokens += s.tokens
}

// splitSegment cuts an oversized block at sentence boundaries, and a
// sentence still over limit at token boundaries, yielding the pieces in
// order until yield returns false: a block of millions of sentences is
// never held as millions of pieces. Pieces keep the separator that stood
// between them in the block.
func splitSegment(s segment, limit int, yield func(segment) bool) {
	prevEnd := -1
	add := func(start, end int) bool {
		sep, cont := "", prevEnd >= 0
		if cont {
			if gap := s.text[prevEnd:start]; strings.Contains(gap, "\n") {
				sep = "\n"
			} else if gap != "" {
				sep = " "
			}
		}
		text := s.text[start:end]
		prevEnd = end
		return yield(segment{text: text, kind: s.kind, page: s.page, ocr: s.ocr, tokens: CountTokens(text), cont: cont, sep: sep})
	}
	eachSentence(s.text, func(sp span) bool {
		sentence := s.text[sp.start:sp.end]
		if CountTokens(sentence) <= limit {
			return add(sp.start, sp.end)
		}
		n, first, last := 0, 0, 0 // a run of n tokens, sentence[first:last]
		for i := 0; ; {
			start, end := nextToken(sentence, i)
			if start < 0 {
				break
			}
			if n == 0 {
				first = start
			}
			n, last, i = n+1, end, end
			if n == limit {
				if !add(sp.start+first, sp.start+last) {
					return false
				}
				n = 0
			}
		}
		return n == 0 || add(sp.start+first, sp.start+last)
	})
}

// text renders the current chunk, returning also each segment's offset.
func (c *chunker) text() (string, []int) {
	var b strings.Builder
	offsets := make([]int, len(c.cur))
	for i, s := range c.cur {
		if i > 0 {
			b.WriteString(separator(c.cur[i-1], s))
		}
		offsets[i] = b.Len()
		b.WriteString(s.text)
	}
	return b.String(), offsets
}

// separator joins two segments: a split block's pieces keep their own
// separator, list items and table rows sit on consecutive lines, other
// blocks are separated by a blank line.
func separator(prev, s segment) string {
	switch {
	case s.cont:
		return s.sep
	case prev.kind == s.kind && (s.kind == document.BlockListItem || s.kind == document.BlockTable):
		return "\n"
	}
	return "\n\n"
}

// emit closes the current chunk. With cont, the section goes on, so the
// chunk's trailing sentences are kept to open the next one.
func (c *chunker) emit(cont bool) {
	body := false
	for _, s := range c.cur {
		body = body || !s.overlap
	}
	if !body {
		return
	}
	text, offsets := c.text()
	if len(text) > ragd.MaxChunkTextBytes {
		// a run no sentence or token boundary cuts: cut at the bound,
		// without an overlap (which would not fit either)
		for _, part := range cutText(text, ragd.MaxChunkTextBytes) {
			c.out = append(c.out, c.piece(part))
		}
		c.cur, c.curTokens = nil, 0
		return
	}
	c.out = append(c.out, c.piece(text))
	if cont && c.opt.Overlap > 0 {
		c.carry = c.tail(text, offsets)
	}
	c.cur, c.curTokens = nil, 0
}

// cutText cuts text into parts of at most limit bytes, each at a line
// break or space in its second half when there is one, else at a
// character boundary.
func cutText(text string, limit int) []string {
	var parts []string
	for len(text) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		if i := strings.LastIndexAny(text[:cut], " \n"); i > cut/2 {
			cut = i + 1
		}
		parts = append(parts, text[:cut])
		text = text[cut:]
	}
	return append(parts, text)
}

// tail picks the longest run of whole trailing sentences of text within the
// overlap budget, never the whole text.
func (c *chunker) tail(text string, offsets []int) *carry {
	spans := sentenceSpans(text)
	k := &carry{text: text, kind: c.cur[len(c.cur)-1].kind}
	total := 0
	for i := len(spans) - 1; i >= 1; i-- { // i >= 1: never carry the whole chunk
		total += CountTokens(text[spans[i].start:spans[i].end])
		if total > c.opt.Overlap {
			break
		}
		k.starts = append(k.starts, spans[i].start)
		k.tokens = append(k.tokens, total)
		k.pages = append(k.pages, c.pageAt(spans[i].start, offsets))
		k.ocr = append(k.ocr, c.ocrFrom(spans[i].start, offsets))
	}
	if len(k.starts) == 0 {
		return nil
	}
	// longest suffix first, so append tries the most overlap first
	for i, j := 0, len(k.starts)-1; i < j; i, j = i+1, j-1 {
		k.starts[i], k.starts[j] = k.starts[j], k.starts[i]
		k.tokens[i], k.tokens[j] = k.tokens[j], k.tokens[i]
		k.pages[i], k.pages[j] = k.pages[j], k.pages[i]
		k.ocr[i], k.ocr[j] = k.ocr[j], k.ocr[i]
	}
	return k
}

func (c *chunker) pageAt(off int, offsets []int) int {
	page := 0
	for i, o := range offsets {
		if o <= off {
			page = c.cur[i].page
		}
	}
	return page
}

// ocrFrom reports whether the chunk's text from off on holds OCR'd text.
func (c *chunker) ocrFrom(off int, offsets []int) bool {
	for i, o := range offsets {
		if c.cur[i].ocr && o+len(c.cur[i].text) > off {
			return true
		}
	}
	return false
}

func (c *chunker) piece(text string) Piece {
	p := Piece{Text: text, Page: c.cur[0].page}
	for _, s := range c.cur {
		p.OCR = p.OCR || s.ocr
	}
	var trail []string
	// the title leads the trail unless the top heading already says it
	if c.title != "" && (len(c.stack) == 0 || c.stack[0].Text != c.title) {
		trail = append(trail, c.title)
	}
	heading := c.title
	for _, h := range c.stack {
		trail = append(trail, h.Text)
		heading, p.Level = h.Text, h.Level
	}
	p.Path = strings.Join(trail, " > ")
	first := ""
	for _, s := range c.cur {
		if !s.overlap {
			first = firstSentence(s.text)
			break
		}
	}
	p.Summary = summarize(heading, first)
	return p
}

// summarize joins a heading and a sentence, cut to maxSummaryRunes at a word
// boundary.
func summarize(heading, sentence string) string {
	s := sentence
	if heading != "" && sentence != "" {
		s = heading + ": " + sentence
	} else if heading != "" {
		s = heading
	}
	if utf8.RuneCountInString(s) <= maxSummaryRunes {
		return s
	}
	runes := []rune(s)[:maxSummaryRunes-1]
	cut := string(runes)
	if i := strings.LastIndexAny(cut, " \n"); i > len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:") + "…"
}
