package ragd

import (
	"strings"
)

// A document's source URI: the one place its forms are built and taken
// apart are the functions below: file://<absolute clean path> for a file read
// from the ingest roots, upload://<kb_name>/[<scope>/]<file name> for an
// uploaded file, text://[<scope>/]<32 hex digits> for inline text (a hash
// of it), <kind>+<where>#<item> for an item of a source (SourceItemURI:
// git+<repository URL>?ref=<ref>#<path> for a file of a git source), and
// http(s) URLs as ingest.CanonicalURL writes them. A
// document's id is derived from its source (DocumentID). The scope
// segment keeps askers who see differently apart (sourcescope.go); an
// upload's file name follows guard.UploadName.

// The schemes of the sources ragd names itself.
const (
	FileScheme   = "file://"
	UploadScheme = "upload://"
	TextScheme   = "text://"
)

// FileURI is the source of the file at path (absolute and clean).
func FileURI(path string) string { return FileScheme + path }

// URIFilePath is the path of a file:// source; ok is false for another one.
func URIFilePath(src string) (path string, ok bool) { return strings.CutPrefix(src, FileScheme) }

// TextURI is the source of inline text asked for with scope (URIScope's segment,
// "" for an asker who sees every document).
func TextURI(scope, text string) string {
	return TextScheme + scope + ContentHash([]byte(text))[:32]
}

// UploadURI is the source of a file uploaded to namespace under name, with
// the asker's scope segment: one per name, so uploading the same name
// again makes a new version of the same document.
func UploadURI(namespace, scope, name string) string {
	return UploadScheme + namespace + "/" + scope + name
}

// MoveUploadURI is src, an upload source of namespace from, as an upload to
// namespace to; any other source is src unchanged.
func MoveUploadURI(src, from, to string) string {
	if rest, ok := strings.CutPrefix(src, UploadScheme+from+"/"); ok && from != to {
		return UploadScheme + to + "/" + rest
	}
	return src
}

// SourceItemPrefix is what the source URI of every item of a source of
// kind reading from where starts with: <kind>+<where>#. Where is the
// source's own address — for git the repository URL and ref (GitURIPrefix),
// for web the start URL, for s3 the endpoint, bucket and prefix — and
// holds no "#", which the source's checks refuse, so the item comes apart
// again (SourceItem).
func SourceItemPrefix(kind SourceKind, where string) string { return string(kind) + "+" + where + "#" }

// SourceItemURI is the source URI of item (a path, a page URL, a key) of
// a source of kind reading from where.
func SourceItemURI(kind SourceKind, where, item string) string {
	return SourceItemPrefix(kind, where) + item
}

// SourceItem is the item of a source URI SourceItemURI wrote for kind;
// ok is false for another source.
func SourceItem(kind SourceKind, src string) (item string, ok bool) {
	rest, ok := strings.CutPrefix(src, string(kind)+"+")
	if !ok {
		return "", false
	}
	_, item, ok = strings.Cut(rest, "#")
	return item, ok
}

// GitURI is the source of the file at path (slash-separated, from the
// repository's root) of ref in the repository at repoURL:
// git+<repoURL>?ref=<ref>#<path>. Repository URLs with a query or a
// fragment are refused when the source is added, so the parts come apart
// again.
func GitURI(repoURL, ref, path string) string { return GitURIPrefix(repoURL, ref) + path }

// GitURIPrefix is what every GitURI of ref in repoURL starts with.
func GitURIPrefix(repoURL, ref string) string {
	return SourceItemPrefix(SourceGit, repoURL+"?ref="+ref)
}

// GitURIPath is the file path of a git source URI; ok is false for
// another source.
func GitURIPath(src string) (path string, ok bool) { return SourceItem(SourceGit, src) }
