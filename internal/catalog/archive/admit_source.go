package archive

import (
	"net/url"
	"path"
	"strings"

	"ragd"
	"ragd/internal/ingest"
	"ragd/internal/ingest/guard"
	"ragd/internal/ingest/sourcetype"
)

// maxPathBytes is Linux's PATH_MAX: the kernel opens no longer path, so
// no file ragd ingests has one.
const maxPathBytes = 4096

// source checks an archived document's source is of a kind ragd makes,
// in the form ragd writes it, and of a type its source gives:
//
//   - file://<absolute clean path>, typed by its extension. An imported
//     file source is a label: nothing reads a file on a document's account
//     (a sync reads the files it walks, inside the roots), so it may name
//     a path anywhere, but only one an ingest could have made.
//   - http:// or https:// URLs as ingest.CanonicalURL writes them.
//   - text://<32 hex digits> (a hash of the text), typed txt.
//   - upload://<the archive's kb_name>/<file name>, the file name as an
//     upload keeps it (guard.UploadName), typed by its extension.
//   - git+<repository URL>?ref=<ref>#<path> (ragd.GitURI), the path clean
//     and relative, typed by its name; like a file source, a label.
//
// ragd.ParseSourceURI takes the source apart; the checks of what fills
// each form are admission's.
func (r *admission) source(doc ragd.Document) error {
	s := doc.Source
	u, err := ragd.ParseSourceURI(s)
	switch u.Scheme {
	case ragd.SchemeItem:
		if err == nil && u.Kind == ragd.SourceGit {
			return gitSource(s, u, doc.SourceType)
		}
	case ragd.SchemeFile:
		return fileSource(u.Path, doc.SourceType)
	case ragd.SchemeHTTP, ragd.SchemeHTTPS:
		return urlSource(s)
	case ragd.SchemeText:
		if err != nil {
			return Refuse("source", "text source %q is not text://[~<8 hex digits>/]<32 hex digits>, the form ragd names inline text by", Clip(s))
		}
		return typed(doc.SourceType, ragd.SourceText, s)
	case ragd.SchemeUpload:
		return r.uploadSource(s, u, err, doc.SourceType)
	}
	return Refuse("source", "source %q is none ragd makes: file://<absolute path>, http(s)://<host>/…, text://<hash> or "+
		"upload://<kb_name>/<file name>", Clip(s))
}

func gitSource(s string, u ragd.SourceURI, typ ragd.SourceType) error {
	p := u.Item
	if _, _, hasRef := u.GitRef(); !hasRef || p == "" || strings.HasPrefix(p, "/") || len(p) > maxPathBytes ||
		strings.ContainsRune(p, 0) || path.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../") {
		return Refuse("source", "git source %q is not git+<url>?ref=<ref>#<clean relative path>, as ragd writes one", Clip(s))
	}
	return extensionTyped(p, typ, s)
}

func fileSource(p string, typ ragd.SourceType) error {
	switch {
	case !strings.HasPrefix(p, "/"):
		return Refuse("source", "file source %q is not file://<absolute path>", Clip(ragd.FileURI(p)))
	case len(p) > maxPathBytes:
		return Refuse("source", "file source path is %d bytes long; a path is at most %d", len(p), maxPathBytes)
	case strings.ContainsRune(p, 0) || path.Clean(p) != p:
		return Refuse("source", "file source %q is not a clean path (no ., .., // or NUL), as ragd writes one", Clip(ragd.FileURI(p)))
	}
	return extensionTyped(p, typ, ragd.FileURI(p))
}

func urlSource(s string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return Refuse("source", "source %q is not a URL: %v", Clip(s), err)
	case u.Hostname() == "":
		return Refuse("source", "URL source %q has no host", Clip(s))
	}
	if c := ingest.CanonicalURL(u); c != s {
		return Refuse("source", "URL source %q is not in the form ragd writes a URL (%s)", Clip(s), Clip(c))
	}
	return nil
}

func (r *admission) uploadSource(s string, u ragd.SourceURI, err error, typ ragd.SourceType) error {
	if err != nil || u.Namespace != r.from {
		return Refuse("source", "upload source %q does not name the archive's namespace (upload://%s/[~<8 hex digits>/]<file name>)",
			Clip(s), r.from)
	}
	if kept, _, err := guard.UploadName(u.Name); err != nil || kept != u.Name {
		return Refuse("source", "upload source %q does not end in a file name an upload keeps", Clip(s))
	}
	return extensionTyped(u.Name, typ, s)
}

// extensionTyped checks a file's type is the one its extension gives, as
// an ingest picks its parser.
func extensionTyped(name string, typ ragd.SourceType, source string) error {
	want, ok := sourcetype.ForName(name)
	if !ok {
		return Refuse("source", "source %q is no file type ragd loads (%s)", Clip(source), strings.Join(sourcetype.Extensions(), ", "))
	}
	return typed(typ, want, source)
}

func typed(typ, want ragd.SourceType, source string) error {
	if typ != want {
		return Refuse("source_type", "source_type %q, but ragd loads %s as %s", Clip(string(typ)), Clip(source), want)
	}
	return nil
}
