package ingest

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"ragd"
	"ragd/internal/ingest/document"
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
// blocks, keeping the line breaks inside each paragraph. A paragraph's text
// is a slice of the normalized text, not a copy: a file of millions of
// short lines costs no more than its bytes.
func paragraphs(s string, page int) []document.Block {
	var blocks []document.Block
	s = document.NormalizeNewlines(s)
	start, end := -1, 0 // the open paragraph is s[start:end]
	for pos := 0; ; {
		lineEnd := len(s)
		if i := strings.IndexByte(s[pos:], '\n'); i >= 0 {
			lineEnd = pos + i
		}
		switch {
		case strings.TrimSpace(s[pos:lineEnd]) != "":
			if start < 0 {
				start = pos
			}
			end = lineEnd
		case start >= 0:
			blocks = append(blocks, document.Block{Kind: document.BlockParagraph, Text: s[start:end], Page: page})
			start = -1
		}
		if lineEnd == len(s) {
			break
		}
		pos = lineEnd + 1
	}
	if start >= 0 {
		blocks = append(blocks, document.Block{Kind: document.BlockParagraph, Text: s[start:end], Page: page})
	}
	return blocks
}
