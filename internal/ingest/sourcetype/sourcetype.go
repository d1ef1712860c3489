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
// with the leading dot (and ForName the names without one). The caller
// may keep or change the returned slice.
func Extensions() []string {
	return []string{".txt", ".md", ".markdown", ".html", ".htm", ".pdf", ".docx"}
}

// plainNames are the file names without an extension that projects use for
// plain text (README, LICENSE, …), upper-cased: loaded as text.
var plainNames = map[string]bool{
	"README": true, "LICENSE": true, "LICENCE": true, "COPYING": true, "NOTICE": true, "AUTHORS": true,
	"CONTRIBUTORS": true, "CHANGELOG": true, "CHANGES": true, "HISTORY": true, "NEWS": true, "INSTALL": true,
	"CONTRIBUTING": true, "TODO": true, "CODEOWNERS": true,
}

// ForName maps a file's name (or path) to its source type: by its
// extension (ForExtension), or as text for the plain names projects give
// text files without one (README, LICENSE, CHANGELOG, …); ok is false for
// the others. Every place that decides whether ragd loads a file asks this.
func ForName(name string) (ragd.SourceType, bool) {
	base := name[strings.LastIndexAny(name, `/\`)+1:]
	if i := strings.LastIndexByte(base, '.'); i >= 0 {
		return ForExtension(base[i:])
	}
	if plainNames[strings.ToUpper(base)] {
		return ragd.SourceText, true
	}
	return "", false
}

// ForExtension maps a file extension (".pdf", case-insensitive) to its
// source type; ok is false for extensions ingest cannot load.
func ForExtension(ext string) (ragd.SourceType, bool) {
	t, ok := extensionTypes[strings.ToLower(ext)]
	return t, ok
}
