package ragd

import (
	"context"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// EveryGroup is the group that sees every document: an operator's. In a
// document's access it means everyone, as an empty list does, and the
// store keeps an open document's access as exactly this one value, so a
// filter needs no "is empty" test (Weaviate cannot filter on an absent
// property unless the collection indexed null state from the start).
const EveryGroup = "*"

// Bounds of a document's access list and a principal's groups.
const (
	// MaxAccessGroups bounds the groups a document is shared with.
	MaxAccessGroups = 100
	// MaxGroupChars bounds one group name, in characters.
	MaxGroupChars = 128
)

// NormalizeAccess checks a document's access list and returns it sorted,
// without duplicates, and empty (nil) when it names EveryGroup: names of
// 1 to MaxGroupChars printable characters without commas or spaces (the
// upload form separates them by commas), at most MaxAccessGroups of them.
// field names the request field in the error.
func NormalizeAccess(field string, groups []string) ([]string, error) {
	if len(groups) > MaxAccessGroups {
		return nil, Invalid(field, "value_error", "%s lists %d groups; at most %d", field, len(groups), MaxAccessGroups)
	}
	out := make([]string, 0, len(groups))
	for _, g := range groups {
		if err := CheckGroup(field, g); err != nil {
			return nil, err
		}
		if g == EveryGroup {
			return nil, nil
		}
		out = append(out, g)
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// CheckGroup checks one group name, of a document's access or a
// principal's groups: 1 to MaxGroupChars printable characters, no comma
// or space. field names where it came from in the error.
func CheckGroup(field, g string) error {
	n := utf8.RuneCountInString(g)
	if n == 0 || n > MaxGroupChars || !utf8.ValidString(g) {
		return Invalid(field, "value_error", "%s: a group name is 1 to %d characters", field, MaxGroupChars)
	}
	if strings.IndexFunc(g, func(r rune) bool { return r == ',' || unicode.IsSpace(r) || !unicode.IsPrint(r) }) >= 0 {
		return Invalid(field, "value_error", "%s: group %.40q holds a comma, a space or a control character", field, g)
	}
	return nil
}

// StoredAccess is the access values a chunk of a document with access
// holds in the store: the groups, or EveryGroup for an open document.
func StoredAccess(access []string) []string {
	if len(access) == 0 {
		return []string{EveryGroup}
	}
	return access
}

// LoadedAccess is a document's access from the values its chunks hold in
// the store: StoredAccess undone (nil for an open document).
func LoadedAccess(stored []string) []string {
	if len(stored) == 0 || slices.Contains(stored, EveryGroup) {
		return nil
	}
	return stored
}

// Audience is what a principal may see: every document, or those open to
// everyone and those shared with one of its groups. The zero value sees
// only open documents, so a principal that was never given groups sees no
// more than that.
type Audience struct {
	all    bool
	groups []string // sorted, unique; empty when all
}

// EveryDocument is the audience of operators and of a server without
// authentication.
func EveryDocument() Audience { return Audience{all: true} }

// GroupAudience is the audience of a principal holding groups; holding
// EveryGroup makes it EveryDocument.
func GroupAudience(groups []string) Audience {
	if slices.Contains(groups, EveryGroup) {
		return EveryDocument()
	}
	g := slices.Clone(groups)
	slices.Sort(g)
	return Audience{groups: slices.Compact(g)}
}

// All reports whether the audience sees every document.
func (a Audience) All() bool { return a.all }

// Groups are the audience's groups (none when it sees all).
func (a Audience) Groups() []string { return slices.Clone(a.groups) }

// Sees reports whether a document with access is visible to the audience.
func (a Audience) Sees(access []string) bool {
	if a.all || len(access) == 0 {
		return true
	}
	for _, g := range access {
		if g == EveryGroup {
			return true
		}
		if _, ok := slices.BinarySearch(a.groups, g); ok {
			return true
		}
	}
	return false
}

// StoreFilter is the values one of which a chunk's stored access must
// hold for the audience to see it (see StoredAccess); nil means no
// restriction. A search plan carries it, so it is also what keeps the
// cached results of audiences that see differently apart.
func (a Audience) StoreFilter() []string {
	if a.all {
		return nil
	}
	return append([]string{EveryGroup}, a.groups...)
}

// Key is the audience as one string, as a job records who asked for it:
// EveryGroup for an audience that sees every document, else its groups
// joined by commas (which no group name holds), "" for none.
func (a Audience) Key() string {
	if a.all {
		return EveryGroup
	}
	return strings.Join(a.groups, ",")
}

// audienceKey carries an Audience in a context.
type audienceKey struct{}

// WithAudience returns ctx carrying aud: what every read of documents,
// chunks and jobs under ctx may see. Those reads apply it themselves (the
// chunk store, the registry, the job queue), so no caller can forget it.
// authn sets it with the request's principal; a job's run, with the
// audience of the principal that asked for it.
func WithAudience(ctx context.Context, aud Audience) context.Context {
	return context.WithValue(ctx, audienceKey{}, aud)
}

// AudienceIn is what ctx may see (WithAudience). A context that carries
// none is ragd's own — no authentication, a watcher, a job nobody limited
// asked for — and sees every document.
func AudienceIn(ctx context.Context) Audience {
	if a, ok := ctx.Value(audienceKey{}).(Audience); ok {
		return a
	}
	return EveryDocument()
}

// ViewerAudience is the audience of a job's Viewer (its payload's form:
// nil for a principal that saw every document, else its groups).
func ViewerAudience(viewer *[]string) Audience {
	if viewer == nil {
		return EveryDocument()
	}
	return GroupAudience(*viewer)
}

// SeesJobsOf reports whether the audience may see a job asked for by a
// principal of the audience whose Key is key: an operator's jobs only
// operators see; other jobs, those who see every document the asker did
// (an audience whose groups include all the asker's). A job tells what it
// read (its source, document, content hash), so no one who could not see
// that document may read it, list it, count it or cancel it.
func (a Audience) SeesJobsOf(key string) bool {
	if a.all {
		return true
	}
	if key == EveryGroup {
		return false
	}
	if key == "" {
		return true
	}
	for _, g := range strings.Split(key, ",") {
		if _, ok := slices.BinarySearch(a.groups, g); !ok {
			return false
		}
	}
	return true
}

// MayShare is the one rule for who may leave a document with access: by
// PATCH, or by (re-)indexing it with access given (nil: not given, the
// document keeps its own). doc is the document now, nil for a new one;
// the caller has already answered one hidden from the audience as
// missing. An operator may do anything. Others may create a document open
// or shared with at least one group of theirs (not one only others would
// see), and may change an existing document's access only when they are
// in one of its groups (an open document is the operator's to restrict).
func (a Audience) MayShare(doc *Document, access *[]string) error {
	switch {
	case a.all || access == nil:
		return nil
	case doc == nil:
		if len(*access) > 0 && !a.Sees(*access) {
			return Forbidden("a document may be shared only with groups that include one of yours; %v would hide it from you", *access)
		}
	case slices.Equal(doc.Access, *access):
	case len(doc.Access) == 0 || !a.Sees(doc.Access):
		return Forbidden("only an operator or a member of one of the document's groups may change its access")
	}
	return nil
}

// MayIndex is the one check of an index request, and of its job's run,
// against the document it would replace (nil: none yet): a document
// hidden from the audience is not its to replace or re-share, and access
// given is held to MayShare.
func (a Audience) MayIndex(doc *Document, access *[]string) error {
	if doc != nil && !a.Sees(doc.Access) {
		return Forbidden("%s is indexed in namespace %s as a document not shared with you; it is left as it is", doc.Source, doc.Namespace)
	}
	return a.MayShare(doc, access)
}
