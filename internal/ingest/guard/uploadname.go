package guard

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"ragd"
	"ragd/internal/ingest/sourcetype"
)

// maxFilenameBytes bounds an uploaded file's name, as most file systems do.
const maxFilenameBytes = 255

// UploadName is the name an uploaded file is kept under: its base name
// (whatever follows the last / or \, so a client's path says nothing), which
// must be valid UTF-8 without control characters (bidirectional and
// invisible ones included: they disguise a name, see ragd.Disguising),
// neither empty nor . or .., at most
// maxFilenameBytes long, and end in a supported extension.
func UploadName(raw string) (string, ragd.SourceType, error) {
	name := raw[strings.LastIndexAny(raw, `/\`)+1:]
	r, disguised := ragd.Disguising(name)
	switch {
	case strings.TrimSpace(name) == "" || name == "." || name == "..":
		return "", "", ragd.Invalid("file", "value_error", "the file has no usable name (%q); give each file part a filename", raw)
	case !utf8.ValidString(name) || strings.ContainsFunc(name, unicode.IsControl):
		return "", "", ragd.Invalid("file", "value_error", "file name %q holds control characters or is not UTF-8", raw)
	case disguised:
		return "", "", ragd.Invalid("file", "value_error", "%s", ragd.DisguiseRefusal(fmt.Sprintf("file name %+q", name), r))
	case len(name) > maxFilenameBytes:
		return "", "", ragd.Invalid("file", "value_error", "file name is %d bytes long; at most %d are allowed", len(name), maxFilenameBytes)
	}
	typ, ok := sourcetype.ForName(name)
	if !ok {
		return "", "", ragd.Invalid("file", "value_error", "unsupported file type %q of %s: supported are %s",
			filepath.Ext(name), name, strings.Join(sourcetype.Extensions(), ", "))
	}
	return name, typ, nil
}
