package document

import (
	"net/url"
	"path"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"ragd"
)

// Finish gives every reader's output the same treatment: l becomes a
// document of type typ with clean blocks (normalized text, no empty
// blocks), a title (its own, else its first level-1 heading, else from
// name, a file name or URL) and pictures whose text has its ligatures
// folded. A document left without blocks is a *ParseError; one of
// headings only gets a paragraph of their text (headingsBody).
func Finish(l *Loaded, typ ragd.SourceType, name string) (*Loaded, error) {
	l.SourceType = typ
	l.Blocks = cleanBlocks(l.Blocks)
	if len(l.Blocks) == 0 {
		return nil, Errorf(name, typ, "no extractable text")
	}
	l.Blocks = headingsBody(l.Blocks)
	l.Title = normalizeSpace(l.Title)
	if l.Title == "" {
		l.Title = firstHeading(l.Blocks, 1)
	}
	if l.Title == "" {
		l.Title = fallbackTitle(name)
	}
	l.Title = cutTitle(l.Title)
	FoldImageText(l.Images)
	return l, nil
}

// FoldImageText folds the ligatures of the pictures' captions and nearby
// text, as Finish does for a document's.
func FoldImageText(imgs []Image) {
	for i := range imgs {
		imgs[i].Caption, imgs[i].Nearby = FoldLigatures(imgs[i].Caption), FoldLigatures(imgs[i].Nearby)
	}
}

// cutTitle cuts a title taken from a document (its metadata, a heading,
// its name) to ragd.MaxTitleChars, ending it with "…", and strips its
// bidirectional controls and invisible characters (ragd.Disguising): a
// request may set neither, and an export of the document must import
// again.
func cutTitle(title string) string {
	title = ragd.StripDisguising(title)
	if utf8.RuneCountInString(title) <= ragd.MaxTitleChars {
		return title
	}
	r := []rune(title)[:ragd.MaxTitleChars-1]
	return strings.TrimRightFunc(string(r), unicode.IsSpace) + "…"
}

// cleanBlocks normalizes block text and drops blocks left empty, so every
// loader gets the same treatment of spacing and line endings.
func cleanBlocks(in []Block) []Block {
	out := in[:0]
	for _, b := range in {
		switch b.Kind {
		case BlockCode:
			b.Text = normalizeCode(b.Text)
		case BlockHeading:
			b.Text = normalizeSpace(strings.Join(strings.Fields(b.Text), " "))
		default:
			b.Text = normalizeSpace(b.Text)
		}
		if b.Text == "" {
			continue
		}
		if b.Kind == BlockHeading {
			b.Level = min(max(b.Level, 1), 6)
		} else {
			b.Level = 0
		}
		out = append(out, b)
	}
	return out
}

// headingsBody gives a document of headings only (a Markdown outline, a
// page of titles) a paragraph of their text, one a line, before them. A
// chunk holds body text and a heading only as its trail, so such a
// document would have no chunk: stored unsearchable, in a form its own
// export cannot import again. Any other document is left as it is.
func headingsBody(blocks []Block) []Block {
	heads := make([]string, 0, len(blocks))
	ocr := false
	for _, b := range blocks {
		if b.Kind != BlockHeading {
			return blocks
		}
		heads = append(heads, b.Text)
		ocr = ocr || b.OCR
	}
	body := Block{Kind: BlockParagraph, Text: strings.Join(heads, "\n"), Page: blocks[0].Page, OCR: ocr}
	return append([]Block{body}, blocks...)
}

// firstHeading returns the text of the first heading of the given level.
func firstHeading(blocks []Block, level int) string {
	for _, b := range blocks {
		if b.Kind == BlockHeading && b.Level == level {
			return b.Text
		}
	}
	return ""
}

// fallbackTitle names a document after its file or the last segment of its
// URL path (the host for a bare URL).
func fallbackTitle(name string) string {
	if u, err := url.Parse(name); err == nil && u.Scheme != "" && u.Host != "" {
		if base := path.Base(strings.TrimRight(u.Path, "/")); base != "" && base != "." && base != "/" {
			if s, err := url.PathUnescape(base); err == nil {
				return s
			}
			return base
		}
		return u.Hostname()
	}
	return filepath.Base(name)
}
