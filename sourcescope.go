package ragd

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Inline text and uploads have no place of their own: their source names
// them by their content (text://<hash>) or by the name they were uploaded
// under (upload://<kb_name>/<name>). Were those sources the same for every
// asker, a key could learn that a document hidden from it holds a text it
// guessed, or has a name (its request refused, a wrong guess accepted), and
// a name taken by one group would be barred to the others. The source of
// one asked for by a principal that does not see every document therefore
// carries its audience's scope, "~" and 8 hex digits of the hash of
// Audience.Key, as its first segment: askers who see alike share
// documents, askers who see differently never meet. An operator's have none.

// scopeMark starts a scope segment.
const scopeMark = "~"

// URIScope is the scope segment, with its slash, of a principal that sees
// aud: "" for one that sees every document.
func URIScope(aud Audience) string {
	if aud.All() {
		return ""
	}
	sum := sha256.Sum256([]byte(aud.Key()))
	return scopeMark + hex.EncodeToString(sum[:4]) + "/"
}

// cutURIScope splits a scope segment (with its slash) off the part of a text
// or upload source after its scheme (and namespace); ok is false when rest
// starts with a malformed one.
func cutURIScope(rest string) (scope, after string, ok bool) {
	if !strings.HasPrefix(rest, scopeMark) {
		return "", rest, true
	}
	seg, after, found := strings.Cut(rest, "/")
	if !found || len(seg) != len(scopeMark)+8 || !isLowerHex(seg[len(scopeMark):]) {
		return "", rest, false
	}
	return seg + "/", after, true
}

func isLowerHex(s string) bool {
	return s != "" && strings.Trim(s, "0123456789abcdef") == ""
}
