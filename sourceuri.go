// Package source is a document's source URI, the one place its forms are
// built and taken apart: file://<absolute clean path> for a file read
// from the ingest roots, upload://<kb_name>/[<scope>/]<file name> for an
// uploaded file, text://[<scope>/]<32 hex digits> for inline text (a hash
// of it), and http(s) URLs as ingest.CanonicalURL writes them. A
// document's id is derived from its source (ragd.DocumentID). The scope
// segment keeps askers who see differently apart (scope.go); an upload's
// file name follows the rule of name.go.
package source

import (
	"strings"

	"ragd"
)

// The schemes of the sources ragd names itself.
const (
	FileScheme   = "file://"
	UploadScheme = "upload://"
	TextScheme   = "text://"
)

// File is the source of the file at path (absolute and clean).
func File(path string) string { return FileScheme + path }

// FilePath is the path of a file:// source; ok is false for another one.
func FilePath(src string) (path string, ok bool) { return strings.CutPrefix(src, FileScheme) }

// Text is the source of inline text asked for with scope (Scope's segment,
// "" for an asker who sees every document).
func Text(scope, text string) string {
	return TextScheme + scope + ragd.ContentHash([]byte(text))[:32]
}

// Upload is the source of a file uploaded to namespace under name, with
// the asker's scope segment: one per name, so uploading the same name
// again makes a new version of the same document.
func Upload(namespace, scope, name string) string {
	return UploadScheme + namespace + "/" + scope + name
}

// MoveUpload is src, an upload source of namespace from, as an upload to
// namespace to; any other source is src unchanged.
func MoveUpload(src, from, to string) string {
	if rest, ok := strings.CutPrefix(src, UploadScheme+from+"/"); ok && from != to {
		return UploadScheme + to + "/" + rest
	}
	return src
}
