package docx

import (
	"encoding/xml"
)

// readDOCXTitle streams docProps/core.xml for the document's title: the
// text right inside the root's last "title" child, as Decoder.Decode reads
// it. A missing or corrupt part gives no title; only a limit is an error.
func readDOCXTitle(pkg *docxPackage) (string, error) {
	const name = "docProps/core.xml"
	if pkg.files[name] == nil {
		return "", nil
	}
	var (
		title []byte
		in    bool // inside a depth-1 title element
		got   string
	)
	err := readDOCXRoot(pkg, name, maxDOCXKept, "title", func(t *docxTokens, tok xml.Token, depth int) error {
		switch e := tok.(type) {
		case xml.StartElement:
			if depth == 1 && e.Name.Local == "title" {
				in, title = true, title[:0]
			}
		case xml.CharData:
			if in && depth == 1 {
				if err := t.keep(len(e)); err != nil {
					return err
				}
				title = append(title, e...)
			}
		case xml.EndElement:
			if in && depth == 1 {
				in, got = false, string(title)
			}
		}
		return nil
	})
	switch {
	case isDOCXLimit(err):
		return "", err
	case err != nil:
		return "", nil
	}
	return got, nil
}
