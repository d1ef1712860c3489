package docx

import (
	"encoding/xml"
	"fmt"
	"path"
	"strings"
)

// readDOCXRels maps the relationship ids of the main part to the package
// paths of their internal targets (what its pictures point at); empty
// without a relationships part.
func readDOCXRels(pkg *docxPackage) (map[string]string, error) {
	dir := path.Dir(pkg.main)
	name := path.Join(dir, "_rels", path.Base(pkg.main)+".rels")
	out := map[string]string{}
	if pkg.files[name] == nil {
		return out, nil
	}
	count := 0
	err := readDOCXRoot(pkg, name, maxDOCXKept, "relationship ids and targets", func(t *docxTokens, tok xml.Token, depth int) error {
		e, ok := tok.(xml.StartElement)
		if !ok || depth != 1 || e.Name.Local != "Relationship" {
			return nil
		}
		if count++; count > maxDOCXRels {
			return docxLimit("%s has more than %d relationships", name, maxDOCXRels)
		}
		id, _ := attrLast(e, "Id")
		target, _ := attrLast(e, "Target")
		mode, _ := attrLast(e, "TargetMode")
		if strings.EqualFold(mode, "External") || target == "" {
			return nil
		}
		if !strings.HasPrefix(target, "/") {
			target = path.Join("/", dir, target)
		}
		target = strings.TrimPrefix(path.Clean(target), "/")
		if err := t.keep(len(id) + len(target)); err != nil {
			return err
		}
		out[id] = target
		return nil
	})
	switch {
	case isDOCXLimit(err):
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("corrupt relationships of %s: %w", pkg.main, err)
	}
	return out, nil
}
