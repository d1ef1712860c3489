package ingest

import (
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
	OCR   bool   // read by OCR from a scanned PDF page
}

// Loaded is a parsed document: its title, type and blocks in reading order.
type Loaded struct {
	Title      string
	SourceType ragd.SourceType
	Blocks     []Block
	// Images are the document's pictures (PDF and DOCX), filled only when
	// the parse was asked for them; ImagesErr says why they could not be
	// read (the text is still the document).
	Images    []Image
	ImagesErr error
	// OCRPages counts the scanned PDF pages read by OCR.
	OCRPages int
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
