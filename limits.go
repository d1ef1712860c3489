package ragd

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Bounds of the labels a document may carry. An index or upload request
// is refused past them, an imported archive too, and a title a loader
// takes from a document's own metadata (an HTML <title>, a PDF's Info) is
// cut to MaxTitleChars, so what ragd stores it would also import.
const (
	// MaxTags bounds a document's (and each chunk's) tags.
	MaxTags = 100
	// MaxTagChars bounds one tag, in characters.
	MaxTagChars = 100
	// MaxTitleChars bounds a title, in characters.
	MaxTitleChars = 1000
	// MaxChunkTextBytes bounds a chunk's text, in bytes. The chunker
	// cuts a chunk no sentence or token boundary brings under it (one
	// 30 MiB "word", a huge code block), so an ingest never writes a
	// longer one and an import refuses it: Weaviate refuses an oversized
	// write whatever the retries.
	MaxChunkTextBytes = 256 << 10
)

// ValidTitle checks a title against MaxTitleChars and refuses
// bidirectional controls and invisible characters (Disguising), which
// would disguise it where it is shown.
func ValidTitle(title string) error {
	if n := utf8.RuneCountInString(title); n > MaxTitleChars {
		return Invalid("title", "value_error", "title has %d characters; at most %d are allowed", n, MaxTitleChars)
	}
	if r, ok := Disguising(title); ok {
		return Invalid("title", "value_error", "%s", DisguiseRefusal("the title", r))
	}
	return nil
}

// ValidTags checks tags against MaxTags and MaxTagChars; a blank tag
// labels nothing.
func ValidTags(tags []string) error {
	if len(tags) > MaxTags {
		return Invalid("tags", "value_error", "%d tags given; at most %d are allowed", len(tags), MaxTags)
	}
	for _, t := range tags {
		if strings.TrimSpace(t) == "" || utf8.RuneCountInString(t) > MaxTagChars {
			return Invalid("tags", "value_error", "tags must be non-empty strings of at most %d characters", MaxTagChars)
		}
		if r, ok := Disguising(t); ok {
			return Invalid("tags", "value_error", "%s", DisguiseRefusal(fmt.Sprintf("tag %+q", t), r))
		}
	}
	return nil
}
