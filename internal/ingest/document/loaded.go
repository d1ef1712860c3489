package document

import (
	"strings"

	"ragd"
)

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
