package docx

import (
	"ragd"
	"ragd/internal/ingest/document"
)

// Parse reads a DOCX document (see parseDOCX), its pictures too when
// images is set, and gives it the treatment of document.Finish. name (a
// file name or URL) appears in errors and gives the title when the
// document has none of its own. A corrupt or hostile file, one past the
// reader's bounds (limits.go) included, is a *document.ParseError.
func Parse(data []byte, name string, images bool) (*document.Loaded, error) {
	l, err := parseDOCX(data, name, images)
	if err != nil {
		return nil, err
	}
	return document.Finish(l, ragd.SourceDOCX, name)
}

// ExtractImages returns the pictures of a DOCX document in document order,
// within document.MaxImages and document.MaxImageBytes. It fails only when
// the container is corrupt (a *document.ParseError without Source: the
// caller knows the name); a picture it cannot read is skipped.
func ExtractImages(data []byte) (imgs []document.Image, err error) {
	defer func() {
		if r := recover(); r != nil {
			imgs, err = nil, document.Errorf("", ragd.SourceDOCX, "malformed DOCX: %s", document.PanicText(r))
		}
	}()
	imgs, err = extractDOCXImages(data)
	document.FoldImageText(imgs)
	return imgs, err
}

// parseDOCX reads a DOCX in one pass (see readDOCX): paragraphs become
// blocks, paragraph styles named "Title"/"heading N" (or with an outline
// level) headings, numbered paragraphs list items, table rows table blocks.
// With images it also fills l.Images, exactly as extractDOCXImages would
// return them, from the same pass; a failure of the pictures alone (corrupt
// relationships) goes to l.ImagesErr and the text is still returned.
func parseDOCX(data []byte, name string, images bool) (*document.Loaded, error) {
	m, err := readDOCX(data, docxWant{text: true, pictures: images})
	if err != nil {
		return nil, document.Errorf(name, ragd.SourceDOCX, "%w", err)
	}
	l := &document.Loaded{Title: m.title, Blocks: m.blocks}
	if images {
		if l.Images, err = m.pics.images(); err != nil {
			l.ImagesErr = document.Errorf(name, ragd.SourceDOCX, "%w", err)
		}
	}
	return l, nil
}
