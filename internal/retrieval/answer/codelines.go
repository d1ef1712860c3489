package answer

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Chunk text shows code in one of two ways (ingest/markdown.go,
// ingest/text.go, ingest/document/normalize.go):
//   - a Markdown or HTML code block is a block of its own, set off by blank
//     lines, its fences dropped; its lines keep their indentation and inner
//     spacing, which ingest collapses in every other block;
//   - plain text (a .txt file, text sent inline) keeps its ``` fences, with
//     spacing collapsed.
// A block of code is code as a whole: the comment lines of a shell snippet
// ("# Search.") read as prose but answer nothing on their own.

// codeLines marks the lines of text (a passage, split at "\n") that are
// code: inside fences, or in a block of lines (between blank lines) that
// keeps code layout or is mostly lines that look like code.
func codeLines(lines []string) []bool {
	code := make([]bool, len(lines))
	fenced := startsInFence(lines)
	start := 0 // first line of the block outside fences being read
	endBlock := func(end int) {
		var n, like int
		layout := false
		for _, raw := range lines[start:end] {
			if strings.TrimSpace(raw) == "" {
				continue
			}
			n++
			layout = layout || hasCodeLayout(raw)
			if looksLikeCode(strings.Join(strings.Fields(raw), " ")) {
				like++
			}
		}
		if n > 0 && (layout || 2*like >= n) {
			for i := start; i < end; i++ {
				code[i] = true
			}
		}
	}
	for i, raw := range lines {
		line := strings.TrimSpace(raw)
		switch {
		case isFence(line):
			if !fenced {
				endBlock(i)
			}
			// An info string ("```sh") only opens a block: a closing fence
			// has none.
			fenced = !fenced || len(line) > 3
		case fenced:
			code[i] = true
		case line == "":
			endBlock(i)
			start = i + 1
			continue
		default:
			continue
		}
		start = i + 1
	}
	if !fenced {
		endBlock(len(lines))
	}
	return code
}

// startsInFence reports whether text begins inside a fenced block, cut by the
// chunker: its fences do not pair up, the first has no info string (so it
// may close a block) and the lines before it look like code.
func startsInFence(lines []string) bool {
	first, fences := -1, 0
	for i, raw := range lines {
		if isFence(strings.TrimSpace(raw)) {
			if first < 0 {
				first = i
			}
			fences++
		}
	}
	if fences%2 == 0 || len(strings.TrimSpace(lines[first])) > 3 {
		return false
	}
	var n, like int
	for _, raw := range lines[:first] {
		if line := strings.Join(strings.Fields(raw), " "); line != "" {
			n++
			if looksLikeCode(line) {
				like++
			}
		}
	}
	return n == 0 || 2*like >= n
}

// isFence reports a code fence line: ``` or ~~~, perhaps with an info string.
func isFence(line string) bool {
	return strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~")
}

// hasCodeLayout reports a raw line indented or aligned with runs of spaces:
// ingest keeps such spacing only in code blocks.
func hasCodeLayout(raw string) bool {
	trimmed := strings.TrimRightFunc(raw, unicode.IsSpace)
	if trimmed == "" {
		return false
	}
	r, _ := utf8.DecodeRuneInString(trimmed)
	return unicode.IsSpace(r) || strings.Contains(trimmed, "  ") || strings.Contains(trimmed, "\t")
}

// looksLikeCode reports a line (whitespace collapsed) that reads as code: a
// shell prompt or continuation, a command with a trailing comment, or words
// mostly of paths, flags, keys and symbols.
func looksLikeCode(line string) bool {
	switch {
	case strings.HasPrefix(line, "$ "), strings.HasSuffix(line, `\`):
		return true
	case !strings.HasPrefix(line, "#") && strings.Contains(line, " # "):
		return true // "make test # run every test"
	}
	fields := strings.Fields(line)
	n := 0
	for _, f := range fields {
		if isCodeToken(f) {
			n++
		}
	}
	return len(fields) > 0 && 5*n >= 2*len(fields)
}

// isCodeToken reports a word of code: an operator on its own ("|", "#",
// "="), a flag ("-s", "--kb"), or a word with the marks of a path, key,
// call or literal ("a/b", "top_k", "{", "x=1", "f(x)", "host:8000",
// "go.mod"). Backquotes do not count: an inline code span is prose's.
func isCodeToken(tok string) bool {
	word := strings.Trim(tok, ".,;:!?'\"()[]“”‘’`")
	if word == "" {
		return strings.ContainsAny(tok, "#|\\<>=${}[]();&*")
	}
	if len(word) > 1 && word[0] == '-' && (word[1] == '-' || unicode.IsLetter(rune(word[1]))) {
		return true
	}
	if strings.ContainsAny(word, "/\\={}<>[]$|_@~^*#\"") || strings.Contains(word[1:], "(") {
		return true
	}
	for i := 1; i+1 < len(word); i++ {
		if (word[i] == '.' || word[i] == ':') && isAlnum(word[i-1]) && isAlnum(word[i+1]) {
			return true
		}
	}
	return false
}

func isAlnum(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}
