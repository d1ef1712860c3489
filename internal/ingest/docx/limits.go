package docx

import (
	"errors"
	"fmt"
)

// Limits of the DOCX reader. Its parts are inflated and parsed as streams,
// and what it keeps of them is counted, so a document's memory stays within
// a fixed budget (tens of MB) whatever its parts claim or contain.
const (
	maxDOCXPart        = 256 << 20 // bytes one part may inflate to
	maxDOCXRatio       = 100       // inflated bytes per compressed byte of a part …
	docxRatioAllowance = 4 << 20   // … beyond this many, so small parts never trip it
	maxDOCXToken       = 1 << 20   // bytes of one XML token: a text node, a tag with its attributes, a comment, CDATA
	maxDOCXDepth       = 256       // element nesting (Word's own documents stay under 50)
	maxDOCXAttrs       = 256       // attributes of one element, namespace declarations included
	maxDOCXElements    = 1 << 21   // elements of the main document part
	maxDOCXAuxElements = 1 << 18   // elements of styles.xml, relationships and core properties
	maxDOCXBody        = 32 << 20  // bytes kept of the main part: its text, docxBlockCost a block, and with pictures docxParCost a paragraph and their alt text
	maxDOCXStyles      = 1 << 14   // styles of styles.xml
	maxDOCXRels        = 1 << 16   // relationships of one part
	maxDOCXKept        = 4 << 20   // bytes kept from styles.xml, relationships or core properties (ids, targets, title)

	// What a block and a paragraph kept for the pictures cost beyond their
	// text: a document.Block is 48 bytes, a docxImgPar 24; while the slice that holds
	// them grows, the old and the new array (a quarter larger) are both
	// alive, and the shortest text still takes an 8-byte allocation. A
	// million one-letter paragraphs are no text but ~115 MB.
	docxBlockCost = 120
	docxParCost   = 64
)

// docxLimitError reports a part over one of the limits; its message names
// the part and the limit, and it is never reworded as "corrupt".
type docxLimitError struct{ msg string }

func (e *docxLimitError) Error() string { return e.msg }

// docxLimit makes a docxLimitError.
func docxLimit(format string, args ...any) error {
	return &docxLimitError{msg: fmt.Sprintf(format, args...)}
}

// docxCorrupt explains a failure to read part: a limit error as it is,
// anything else as corruption.
func docxCorrupt(part string, err error) error {
	var le *docxLimitError
	if errors.As(err, &le) {
		return err
	}
	return fmt.Errorf("corrupt %s: %w", part, err)
}

// mib renders a byte count of whole mebibytes ("16 MiB").
func mib(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
