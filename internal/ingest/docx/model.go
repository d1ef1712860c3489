package docx

import (
	"fmt"

	"ragd/internal/ingest/document"
)

// docxModel is a DOCX package read in one pass: the blocks Parse wants
// and, when asked for, what picture extraction needs.
type docxModel struct {
	title  string
	blocks []document.Block
	pics   *docxPictures // nil unless pictures were asked for
}

// docxWant says what a read is for.
type docxWant struct {
	text     bool // the title too, and stop at the first fault of the text
	pictures bool
}

// readDOCX opens the package once, reads what it needs of the styles, the
// main part's relationships and the core properties, and streams the main
// part once. The error is the reason the document cannot be read at all;
// the pictures' own failure is pics.err.
func readDOCX(data []byte, want docxWant) (*docxModel, error) {
	pkg, err := openDOCX(data)
	if err != nil {
		return nil, err
	}
	m := &docxModel{}
	if want.pictures {
		m.pics = newDOCXPictures(pkg)
		if m.pics.err != nil && !want.text {
			return m, nil // nothing else to read for
		}
	}
	styles, err := readDOCXStyles(pkg)
	if err != nil {
		return nil, err
	}
	if err := m.walk(pkg, styles, want.text); err != nil {
		return nil, err
	}
	if want.text {
		if m.title, err = readDOCXTitle(pkg); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// walk streams the main part into the model.
func (m *docxModel) walk(pkg *docxPackage, styles map[string]docxStyle, strict bool) error {
	p, err := openDOCXPart(pkg.files[pkg.main], pkg.size)
	if err != nil {
		if isDOCXLimit(err) {
			return err
		}
		return fmt.Errorf("%s: %v", pkg.main, err)
	}
	defer p.Close()
	w := &docxWalk{
		tokens: newDOCXTokens(p, maxDOCXElements, maxDOCXBody, "text and blocks"),
		styles: styles,
		m:      m,
		strict: strict,
	}
	if err := w.run(); err != nil {
		return docxCorrupt(pkg.main, err)
	}
	return nil
}
