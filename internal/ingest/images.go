package ingest

import (
	"ragd"
	"ragd/internal/ingest/document"
	"ragd/internal/ingest/docx"
	"ragd/internal/ingest/pdftext"
)

// ExtractImages returns the images of a PDF or DOCX document in document
// order (nil for other types). It fails only when the container is corrupt
// (a *document.ParseError without Source: the caller knows the name); an
// image it cannot decode is skipped. At most document.MaxImages images and
// document.MaxImageBytes bytes of image data are returned; pictures smaller
// than document.MinImageSide pixels on a side, when their size is known,
// are skipped.
func ExtractImages(data []byte, typ ragd.SourceType) ([]document.Image, error) {
	switch typ {
	case ragd.SourcePDF:
		return pdftext.ExtractImages(data)
	case ragd.SourceDOCX:
		return docx.ExtractImages(data)
	}
	return nil, nil
}
