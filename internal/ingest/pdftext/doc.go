// Package pdftext reads PDF documents: the text of each page as paragraphs,
// the pages without a text layer by OCR (tesseract on pages pdftoppm
// renders), and the pictures with their captions and nearby text. The PDF
// libraries can loop or allocate without bound on a hostile file, so every
// parse runs in a child process (sandbox.go): the running binary itself,
// re-executed, which this package's init turns into the parser. Any binary
// that links this package therefore serves as its own sandbox.
//
// Inside this package, the identifier pdf refers to the
// github.com/ledongthuc/pdf library, not to this package.
package pdftext
