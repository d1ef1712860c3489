package ingest

import (
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"strings"

	"ragd"
)

// BlockKind is the structural role of a Block.
type BlockKind int

// The block kinds a loader produces.
const (
	BlockParagraph BlockKind = iota
	BlockHeading
	BlockCode
	BlockListItem
	BlockTable // one table row, cells joined by " | "
)

// Block is one structural unit of a loaded document.
type Block struct {
	Kind  BlockKind
	Level int    // heading depth 1..6 for BlockHeading, 0 otherwise
	Text  string // whitespace-normalized; code keeps its indentation
	Page  int    // 1-based page for PDF, 0 otherwise
}

// Loaded is a parsed document: its title, type and blocks in reading order.
type Loaded struct {
	Title      string
	SourceType ragd.SourceType
	Blocks     []Block
}

// NormalizedText joins the whitespace-normalized block texts with "\n\n".
// Its ragd.ContentHash is the document's content hash, so it must stay
// deterministic and insensitive to line endings and spacing.
func (l *Loaded) NormalizedText() string {
	var b strings.Builder
	for _, blk := range l.Blocks {
		t := normalizeSpace(blk.Text)
		if t == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(t)
	}
	return b.String()
}

var extensionTypes = map[string]ragd.SourceType{
	".txt":      ragd.SourceText,
	".md":       ragd.SourceMarkdown,
	".markdown": ragd.SourceMarkdown,
	".html":     ragd.SourceHTML,
	".htm":      ragd.SourceHTML,
	".pdf":      ragd.SourcePDF,
	".docx":     ragd.SourceDOCX,
}

// SupportedExtensions lists the file extensions ingest can load, lowercase
// with the leading dot. The caller may keep or change the returned slice.
func SupportedExtensions() []string {
	return []string{".txt", ".md", ".markdown", ".html", ".htm", ".pdf", ".docx"}
}

// TypeForExtension maps a file extension (".pdf", case-insensitive) to its
// source type; ok is false for extensions ingest cannot load.
func TypeForExtension(ext string) (ragd.SourceType, bool) {
	t, ok := extensionTypes[strings.ToLower(ext)]
	return t, ok
}

// Parse loads data of type typ. name (a file name or URL) appears in errors
// and gives the title when the document has none of its own.
func Parse(data []byte, typ ragd.SourceType, name string) (*Loaded, error) {
	var (
		l   *Loaded
		err error
	)
	switch typ {
	case ragd.SourceText:
		l, err = parseText(data, name)
	case ragd.SourceMarkdown:
		l, err = parseMarkdown(data, name)
	case ragd.SourceHTML:
		l, err = parseHTML(data, name)
	case ragd.SourcePDF:
		l, err = parsePDF(data, name)
	case ragd.SourceDOCX:
		l, err = parseDOCX(data, name)
	default:
		return nil, fmt.Errorf("%w: %q", ErrUnsupported, typ)
	}
	if err != nil {
		return nil, err
	}
	l.SourceType = typ
	l.Blocks = cleanBlocks(l.Blocks)
	if len(l.Blocks) == 0 {
		return nil, parseErr(name, typ, "no extractable text")
	}
	l.Title = normalizeSpace(l.Title)
	if l.Title == "" {
		l.Title = firstHeading(l.Blocks, 1)
	}
	if l.Title == "" {
		l.Title = fallbackTitle(name)
	}
	return l, nil
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
