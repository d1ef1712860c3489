package ingest

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"ragd"
	"ragd/ingest/document"
)

// parseText splits plain text into paragraphs at blank lines. Bytes that are
// not UTF-8, or NULs, mean a binary file with a text extension: refused, as
// indexing them would only store noise.
func parseText(data []byte, name string) (*document.Loaded, error) {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return nil, document.Errorf(name, ragd.SourceText, "NUL byte at offset %d: not a text file", i)
	}
	if !utf8.Valid(data) {
		return nil, document.Errorf(name, ragd.SourceText, "not valid UTF-8 text")
	}
	return &document.Loaded{Blocks: paragraphs(string(data), 0)}, nil
}

// paragraphs splits text at blank (or whitespace-only) lines into paragraph
// blocks, keeping the line breaks inside each paragraph.
func paragraphs(s string, page int) []document.Block {
	var (
		blocks []document.Block
		cur    []string
	)
	flush := func() {
		if len(cur) > 0 {
			blocks = append(blocks, document.Block{Kind: document.BlockParagraph, Text: strings.Join(cur, "\n"), Page: page})
			cur = cur[:0]
		}
	}
	for line := range strings.SplitSeq(document.NormalizeNewlines(s), "\n") {
		if strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		cur = append(cur, line)
	}
	flush()
	return blocks
}
