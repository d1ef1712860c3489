package ragd

import (
	"net/url"
	"strings"
)

// A document's source URI: SourceURI is the one place its forms are
// spelled, built (String) and taken apart (ParseSourceURI):
// file://<absolute clean path> for a file read from the ingest roots,
// upload://<kb_name>/[<scope>/]<file name> for an uploaded file,
// text://[<scope>/]<32 hex digits> for inline text (a hash of it),
// <kind>+<where>#<item> for an item of a source (git+<repository
// URL>?ref=<ref>#<path> for a file of a git source), and http(s) URLs as
// ingest.CanonicalURL writes them. The functions below build and read one
// form each through it. A document's id is derived from its source
// (DocumentID). The scope segment keeps askers who see differently apart
// (sourcescope.go); an upload's file name follows guard.UploadName.

// SourceScheme is the form of a source URI: the scheme it starts with,
// or SchemeItem for an item of a source.
type SourceScheme string

// The forms of source URI ragd writes.
const (
	SchemeFile   SourceScheme = "file"   // file://<path>
	SchemeText   SourceScheme = "text"   // text://[<scope>/]<hash>
	SchemeUpload SourceScheme = "upload" // upload://<namespace>/[<scope>/]<name>
	SchemeHTTP   SourceScheme = "http"   // a URL
	SchemeHTTPS  SourceScheme = "https"  // a URL
	SchemeItem   SourceScheme = "item"   // <kind>+<where>#<item>
)

// The separators of the forms: after a scheme, after an item's kind,
// before its item, and before a git source's ref.
const (
	schemeEnd  = "://"
	kindEnd    = "+"
	itemStart  = "#"
	gitRefMark = "?ref="
)

// textHashDigits is how many hex digits of ContentHash name inline text.
const textHashDigits = 32

// SourceURI is a document's source URI in parts. Which parts a form has:
//
//   - SchemeFile: Path, as written (absolute and clean when ragd writes it).
//   - SchemeText: Scope and Hash.
//   - SchemeUpload: Namespace, Scope and Name.
//   - SchemeHTTP, SchemeHTTPS: URL, the whole URL.
//   - SchemeItem: Kind, Where (the source's own address, holding no "#")
//     and Item (a path, a page URL, a key).
//
// Scope is the asker's scope segment with its slash (URIScope), "" for
// none.
type SourceURI struct {
	Scheme    SourceScheme
	Path      string
	Namespace string
	Scope     string
	Hash      string
	Name      string
	URL       string
	Kind      SourceKind
	Where     string
	Item      string
}

// String is the source URI u's parts make, byte for byte as ragd writes
// it; "" for a scheme ragd does not write.
func (u SourceURI) String() string {
	switch u.Scheme {
	case SchemeFile:
		return string(SchemeFile) + schemeEnd + u.Path
	case SchemeText:
		return string(SchemeText) + schemeEnd + u.Scope + u.Hash
	case SchemeUpload:
		return string(SchemeUpload) + schemeEnd + u.Namespace + "/" + u.Scope + u.Name
	case SchemeHTTP, SchemeHTTPS:
		return u.URL
	case SchemeItem:
		return string(u.Kind) + kindEnd + u.Where + itemStart + u.Item
	}
	return ""
}

// ParseSourceURI takes s apart into the parts of its form. It refuses a
// scheme ragd does not write (its own, file, text and upload, in lower
// case; http and https in any), text whose hash is not 32 lower-case hex
// digits, an upload without a namespace, a malformed scope segment, and
// an item of a kind other than git, web or s3, without a "#" or without
// a where. It checks the form, not what fills it: whether a path is
// absolute and clean, a URL canonical, a name one an upload keeps is for
// who admits a source to say. On an error, u.Scheme is still the scheme
// s starts with when it is one of ragd's, so a caller can say which form
// s breaks.
func ParseSourceURI(s string) (u SourceURI, err error) {
	scheme, rest, found := strings.Cut(s, schemeEnd)
	if !found {
		return parseItem(s)
	}
	switch sc := SourceScheme(scheme); sc {
	case SchemeFile:
		return SourceURI{Scheme: sc, Path: rest}, nil
	case SchemeText:
		return parseText(s, rest)
	case SchemeUpload:
		return parseUpload(s, rest)
	}
	if sc := SourceScheme(strings.ToLower(scheme)); sc == SchemeHTTP || sc == SchemeHTTPS {
		return SourceURI{Scheme: sc, URL: s}, nil
	}
	return parseItem(s)
}

func parseText(s, rest string) (SourceURI, error) {
	u := SourceURI{Scheme: SchemeText}
	scope, hash, ok := cutURIScope(rest)
	if !ok || len(hash) != textHashDigits || !isLowerHex(hash) {
		return u, Invalid("source", "value_error", "text source %q is not text://[~<8 hex digits>/]<32 hex digits>", s)
	}
	u.Scope, u.Hash = scope, hash
	return u, nil
}

func parseUpload(s, rest string) (SourceURI, error) {
	u := SourceURI{Scheme: SchemeUpload}
	ns, scoped, found := strings.Cut(rest, "/")
	scope, name, ok := cutURIScope(scoped)
	if !found || ns == "" || !ok {
		return u, Invalid("source", "value_error", "upload source %q is not upload://<kb_name>/[~<8 hex digits>/]<file name>", s)
	}
	u.Namespace, u.Scope, u.Name = ns, scope, name
	return u, nil
}

func parseItem(s string) (SourceURI, error) {
	kind, rest, found := strings.Cut(s, kindEnd)
	if k := SourceKind(kind); !found || (k != SourceGit && k != SourceWeb && k != SourceS3) {
		return SourceURI{}, Invalid("source", "value_error", "source %q is none ragd writes", s)
	}
	u := SourceURI{Scheme: SchemeItem, Kind: SourceKind(kind)}
	where, item, found := strings.Cut(rest, itemStart)
	if !found || where == "" {
		return u, Invalid("source", "value_error", "source %q is not %s+<where>#<item>", s, kind)
	}
	u.Where, u.Item = where, item
	return u, nil
}

// GitRef is the repository URL and the ref of u, an item of a git
// source (GitURI); ok is false for another source.
func (u SourceURI) GitRef() (repoURL, ref string, ok bool) {
	if u.Scheme != SchemeItem || u.Kind != SourceGit {
		return "", "", false
	}
	return strings.Cut(u.Where, gitRefMark)
}

// FileURLPath is the path u, a file:// URL, names when read as a URL
// (RFC 8089), as a source's url is — not as a document's file source is
// written, its path as is: percent-escapes decoded, the host empty or
// localhost, no query or fragment. ok is false for another scheme or a
// URL naming no local path.
func (u SourceURI) FileURLPath() (path string, ok bool) {
	if u.Scheme != SchemeFile {
		return "", false
	}
	p, err := url.Parse(u.String())
	if err != nil || (p.Host != "" && p.Host != "localhost") || p.RawQuery != "" || p.Fragment != "" {
		return "", false
	}
	return p.Path, true
}

// FileURI is the source of the file at path (absolute and clean).
func FileURI(path string) string { return SourceURI{Scheme: SchemeFile, Path: path}.String() }

// URIFilePath is the path of a file:// source; ok is false for another one.
func URIFilePath(src string) (path string, ok bool) {
	u, err := ParseSourceURI(src)
	if err != nil || u.Scheme != SchemeFile {
		return "", false
	}
	return u.Path, true
}

// TextURI is the source of inline text asked for with scope (URIScope's segment,
// "" for an asker who sees every document).
func TextURI(scope, text string) string {
	return SourceURI{Scheme: SchemeText, Scope: scope, Hash: ContentHash([]byte(text))[:textHashDigits]}.String()
}

// UploadURI is the source of a file uploaded to namespace under name, with
// the asker's scope segment: one per name, so uploading the same name
// again makes a new version of the same document.
func UploadURI(namespace, scope, name string) string {
	return SourceURI{Scheme: SchemeUpload, Namespace: namespace, Scope: scope, Name: name}.String()
}

// MoveUploadURI is src, an upload source of namespace from, as an upload to
// namespace to; any other source is src unchanged.
func MoveUploadURI(src, from, to string) string {
	if u, err := ParseSourceURI(src); err == nil && u.Scheme == SchemeUpload && u.Namespace == from && from != to {
		u.Namespace = to
		return u.String()
	}
	return src
}

// SourceItemPrefix is what the source URI of every item of a source of
// kind reading from where starts with: <kind>+<where>#. Where is the
// source's own address — for git the repository URL and ref (GitURIPrefix),
// for web the start URL, for s3 the endpoint, bucket and prefix — and
// holds no "#", which the source's checks refuse, so the item comes apart
// again (SourceItem).
func SourceItemPrefix(kind SourceKind, where string) string { return SourceItemURI(kind, where, "") }

// SourceItemURI is the source URI of item (a path, a page URL, a key) of
// a source of kind reading from where.
func SourceItemURI(kind SourceKind, where, item string) string {
	return SourceURI{Scheme: SchemeItem, Kind: kind, Where: where, Item: item}.String()
}

// SourceItem is the item of a source URI SourceItemURI wrote for kind;
// ok is false for another source.
func SourceItem(kind SourceKind, src string) (item string, ok bool) {
	u, err := ParseSourceURI(src)
	if err != nil || u.Scheme != SchemeItem || u.Kind != kind {
		return "", false
	}
	return u.Item, true
}

// GitURI is the source of the file at path (slash-separated, from the
// repository's root) of ref in the repository at repoURL:
// git+<repoURL>?ref=<ref>#<path>. Repository URLs with a query or a
// fragment are refused when the source is added, so the parts come apart
// again (GitRef).
func GitURI(repoURL, ref, path string) string { return GitURIPrefix(repoURL, ref) + path }

// GitURIPrefix is what every GitURI of ref in repoURL starts with.
func GitURIPrefix(repoURL, ref string) string {
	return SourceItemPrefix(SourceGit, repoURL+gitRefMark+ref)
}

// GitURIPath is the file path of a git source URI; ok is false for
// another source.
func GitURIPath(src string) (path string, ok bool) { return SourceItem(SourceGit, src) }
