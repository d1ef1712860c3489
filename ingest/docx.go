package ingest

import (
	"ragd"
)

// parseDOCX reads a DOCX in one pass (see readDOCX): paragraphs become
// blocks, paragraph styles named "Title"/"heading N" (or with an outline
// level) headings, numbered paragraphs list items, table rows table blocks.
// With images it also fills l.Images, exactly as extractDOCXImages would
// return them, from the same pass; a failure of the pictures alone (corrupt
// relationships) goes to l.ImagesErr and the text is still returned.
func parseDOCX(data []byte, name string, images bool) (*Loaded, error) {
	m, err := readDOCX(data, docxWant{text: true, pictures: images})
	if err != nil {
		return nil, parseErr(name, ragd.SourceDOCX, "%w", err)
	}
	l := &Loaded{Title: m.title, Blocks: m.blocks}
	if images {
		if l.Images, err = m.pics.images(); err != nil {
			l.ImagesErr = parseErr(name, ragd.SourceDOCX, "%w", err)
		}
	}
	return l, nil
}
