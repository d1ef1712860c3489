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
	// MaxChunkTextBytes bounds a chunk's text, in bytes. The chunker
	// cuts a chunk no sentence or token boundary brings under it (one
	// 30 MiB "word", a huge code block), so an ingest never writes a
	// longer one and an import refuses it: Weaviate refuses an oversized
	// write whatever the retries.
	MaxChunkTextBytes = 256 << 10
)
