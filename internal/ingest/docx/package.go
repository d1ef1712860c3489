package docx

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"path"
	"strings"
)

// docxPackage is an opened DOCX: its parts by name and its main part.
type docxPackage struct {
	files map[string]*zip.File
	main  string // the main document part, "word/document.xml" as a rule
	size  int64  // of the archive, which bounds any compressed size
}

// openDOCX opens data as a DOCX package, or says why it is not one.
func openDOCX(data []byte) (*docxPackage, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("not a DOCX file (not a zip archive): %v", err)
	}
	pkg := &docxPackage{files: make(map[string]*zip.File, len(zr.File)), size: int64(len(data))}
	for _, f := range zr.File {
		pkg.files[strings.TrimPrefix(f.Name, "/")] = f
	}
	if pkg.main, err = docxMainPart(pkg); err != nil {
		return nil, err
	}
	if pkg.files[pkg.main] == nil {
		return nil, errors.New("not a DOCX file: no " + pkg.main)
	}
	return pkg, nil
}

// docxMainPart finds the main document part through the package
// relationships, falling back to the conventional name when they are
// missing or unreadable (but not when they break a limit).
func docxMainPart(pkg *docxPackage) (string, error) {
	const fallback, rels = "word/document.xml", "_rels/.rels"
	if pkg.files[rels] == nil {
		return fallback, nil
	}
	main, found, count := "", false, 0
	err := readDOCXRoot(pkg, rels, maxDOCXKept, "relationships", func(_ *docxTokens, tok xml.Token, depth int) error {
		t, ok := tok.(xml.StartElement)
		if !ok || depth != 1 || t.Name.Local != "Relationship" {
			return nil
		}
		if count++; count > maxDOCXRels {
			return docxLimit("%s has more than %d relationships", rels, maxDOCXRels)
		}
		typ, _ := attrLast(t, "Type")
		target, _ := attrLast(t, "Target")
		if !found && strings.HasSuffix(typ, "/officeDocument") {
			main, found = strings.TrimPrefix(path.Clean("/"+target), "/"), true
		}
		return nil
	})
	switch {
	case isDOCXLimit(err):
		return "", err
	case err != nil || !found:
		return fallback, nil
	}
	return main, nil
}
