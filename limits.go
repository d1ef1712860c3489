package ragd

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
)
