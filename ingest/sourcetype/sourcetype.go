// Package sourcetype names the kinds of source ragd can load: which file
// extensions map to which ragd.SourceType, and the error for the others.
// The readers and the URL fetcher share it without importing each other.
package sourcetype

import (
	"errors"
	"strings"

	"ragd"
)

// ErrUnsupported reports a file extension or content type ingest cannot load.
var ErrUnsupported = errors.New("unsupported source type")

var extensionTypes = map[string]ragd.SourceType{
	".txt":      ragd.SourceText,
	".md":       ragd.SourceMarkdown,
	".markdown": ragd.SourceMarkdown,
	".html":     ragd.SourceHTML,
	".htm":      ragd.SourceHTML,
	".pdf":      ragd.SourcePDF,
	".docx":     ragd.SourceDOCX,
}

// Extensions lists the file extensions ingest can load, lowercase
// with the leading dot. The caller may keep or change the returned slice.
func Extensions() []string {
	return []string{".txt", ".md", ".markdown", ".html", ".htm", ".pdf", ".docx"}
}

// ForExtension maps a file extension (".pdf", case-insensitive) to its
// source type; ok is false for extensions ingest cannot load.
func ForExtension(ext string) (ragd.SourceType, bool) {
	t, ok := extensionTypes[strings.ToLower(ext)]
	return t, ok
}
