package ingest

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"ragd"
	"ragd/internal/ingest/document"
	"ragd/internal/testkit/testenv"
)

// FuzzChunk chunks Markdown documents (real READMEs as seeds) at fuzzed
// sizes and checks the chunker's promises: chunks hold the body's tokens
// in order and all of them (overlap repeats, never reorders or drops), none
// is over the size, the output and the chunk ids are the same every time.
func FuzzChunk(f *testing.F) {
	for i, b := range markdownSeeds(f) {
		f.Add(b, uint16(16+i*40), int16(i%5*8-1))
	}
	f.Add([]byte("# T\n\nOne. Two three. "+strings.Repeat("longword ", 300)+"\n\n- a\n- b\n\n| k | v |\n|---|---|\n| 1 | 2 |\n"), uint16(5), int16(3))
	f.Fuzz(func(t *testing.T, data []byte, tokens uint16, overlap int16) {
		testenv.Within(t, testenv.DefaultBound, func() {
			l, err := Parse(data, ragd.SourceMarkdown, "fuzz.md")
			if err != nil {
				return // FuzzMarkdown checks the failures
			}
			opt := ChunkOptions{Tokens: 1 + int(tokens%2048), Overlap: int(overlap % 1024)}
			pieces := Chunk(l, opt)
			checkPieces(t, l, opt, pieces)
			if again := Chunk(l, opt); !reflect.DeepEqual(pieces, again) {
				t.Fatal("chunking the same document twice gave different chunks")
			}
			checkChunkIDs(t, l, pieces)
		})
	})
}

// tokensOf lists the tokens of s as strings.
func tokensOf(s string) []string {
	var out []string
	for _, sp := range tokenSpans(s) {
		out = append(out, s[sp[0]:sp[1]])
	}
	return out
}

func checkPieces(t *testing.T, l *document.Loaded, opt ChunkOptions, pieces []Piece) {
	t.Helper()
	var body []string
	for _, b := range l.Blocks {
		if b.Kind != document.BlockHeading {
			body = append(body, tokensOf(b.Text)...)
		}
	}
	if (len(body) == 0) != (len(pieces) == 0) {
		t.Fatalf("%d body tokens but %d chunks", len(body), len(pieces))
	}
	limit := max(opt.Tokens, 1)
	var all []string
	start := 0
	for i, p := range pieces {
		toks := tokensOf(p.Text)
		if len(toks) == 0 || len(toks) > limit {
			t.Fatalf("chunk %d has %d tokens, want 1..%d: %q", i, len(toks), limit, p.Text)
		}
		// a chunk is a run of the body at or after the previous chunk's
		// start (the leftmost such run: true positions never come before it)
		at := indexRun(body, toks, start)
		if at < 0 {
			t.Fatalf("chunk %d is not a run of the body after chunk %d's start: %q", i, i-1, p.Text)
		}
		start = at
		all = append(all, toks...)
		if !utf8.ValidString(p.Summary) || utf8.RuneCountInString(p.Summary) > maxSummaryRunes {
			t.Fatalf("chunk %d summary %q: over %d runes or invalid UTF-8", i, p.Summary, maxSummaryRunes)
		}
	}
	// every body token is in some chunk, in order
	j := 0
	for _, tok := range all {
		if j < len(body) && tok == body[j] {
			j++
		}
	}
	if j < len(body) {
		t.Fatalf("the chunks lack body token %d (%q) of %d", j, body[j], len(body))
	}
}

// indexRun is the first index i >= from with hay[i:i+len(run)] == run, -1 if
// none.
func indexRun(hay, run []string, from int) int {
	for i := from; i+len(run) <= len(hay); i++ {
		if reflect.DeepEqual(hay[i:i+len(run)], run) {
			return i
		}
	}
	return -1
}

// checkChunkIDs asserts the ids the worker derives are stable and unique.
func checkChunkIDs(t *testing.T, l *document.Loaded, pieces []Piece) {
	t.Helper()
	doc := ragd.DocumentID("fuzz", "file:///fuzz.md")
	hash := ragd.ContentHash([]byte(l.NormalizedText()))
	seen := map[string]bool{}
	for i := range pieces {
		id := ragd.ChunkID(doc, hash, i)
		if id != ragd.ChunkID(doc, hash, i) || seen[id] {
			t.Fatalf("chunk id %d %q not stable or not unique", i, id)
		}
		seen[id] = true
	}
}
