// Package archive is the portable format a namespace is exported in and
// imported from (docs/ARCHIVE.md): one gzip stream of JSON lines, a header
// record first, then the chunks, the images and the documents, and a
// trailer last that counts them, so an archive cut short or altered is
// refused rather than half-read. The package reads and writes the format
// only; what a record means to ragd is library's concern.
package archive

import (
	"time"

	"ragd"
)

// Format names the archive format in its header.
const Format = "ragd-archive"

// Version is the format version this package writes; it reads it and
// every version from MinVersion on. A change an older reader would
// misread gets a new number: version 2 added access (the groups a
// document is shared with) to documents, chunks and images, which a
// version-1 reader would drop, opening them to everyone.
const Version = 2

// MinVersion is the oldest version this package reads. A version-1
// archive holds no access: every document of it is open.
const MinVersion = 1

// Record types, the "type" of every line.
const (
	TypeHeader   = "header"
	TypeChunk    = "chunk"
	TypeImage    = "image"
	TypeDocument = "document"
	TypeTrailer  = "trailer"
)

// Header is the first record: what made the archive and what its vectors
// are.
type Header struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	// KBName is the namespace exported.
	KBName   string   `json:"kb_name"`
	Embedder Embedder `json:"embedder"`
	// Collection is the Weaviate collection the namespace was read from
	// (informational).
	Collection  string    `json:"collection,omitempty"`
	RagdVersion string    `json:"ragd_version"`
	CreatedAt   time.Time `json:"created_at"`
}

// Embedder names the model every vector of the archive came from.
type Embedder struct {
	Name      string `json:"name"`
	Dimension int    `json:"dimension"`
}

// Chunk is one chunk of a document's current version: the ragd.Chunk
// itself, every field under its JSON name, so a field the type gains is
// archived without a change here. The two fields ragd.Chunk keeps out of
// its JSON, the vector and the thesaurus words written at ingest, are
// added (shadowing the embedded ones: build a Chunk with ChunkOf and read
// it with Domain). Its kb_name is the namespace exported; an import writes
// the chunk to its target namespace.
type Chunk struct {
	ragd.Chunk
	Related string `json:"related,omitempty"`
	// Access is its document's (the same on every chunk and image).
	Access []string  `json:"access,omitempty"`
	Vector []float32 `json:"vector"`
}

// ChunkOf is c as an archive record, its vector, related words and access
// held by the record's own fields only (as a record read back holds them).
func ChunkOf(c ragd.Chunk) *Chunk {
	rec := &Chunk{Chunk: c, Related: c.Related, Access: c.Access, Vector: c.Vector}
	rec.Chunk.Related, rec.Chunk.Access, rec.Chunk.Vector = "", nil, nil
	return rec
}

// Domain is the record as the ragd.Chunk it holds.
func (c *Chunk) Domain() ragd.Chunk {
	d := c.Chunk
	d.Related, d.Access, d.Vector = c.Related, c.Access, c.Vector
	return d
}

// Image is one picture of a document's current version: the ragd.Image
// (its metadata, not its pixels, which ragd does not keep) with its
// vector, as Chunk holds a ragd.Chunk.
type Image struct {
	ragd.Image
	Access []string  `json:"access,omitempty"`
	Vector []float32 `json:"vector"`
}

// ImageOf is im as an archive record, its vector and access held by the
// record's own fields only.
func ImageOf(im ragd.Image) *Image {
	rec := &Image{Image: im, Access: im.Access, Vector: im.Vector}
	rec.Image.Access, rec.Image.Vector = nil, nil
	return rec
}

// Domain is the record as the ragd.Image it holds.
func (im *Image) Domain() ragd.Image {
	d := im.Image
	d.Access, d.Vector = im.Access, im.Vector
	return d
}

// Document is a document's registry entry and its vocabulary. It follows
// the document's chunks and images, so a reader has seen every chunk of a
// document by the time the document itself arrives.
type Document struct {
	Document ragd.Document `json:"document"`
	// Vocabulary is nil when none was recorded for this version.
	Vocabulary *Vocabulary `json:"vocabulary"`
}

// Vocabulary is what ragd learned of a document's words for query
// expansion: how many chunks it has and in how many each word occurs.
type Vocabulary struct {
	Chunks int            `json:"chunks"`
	DF     map[string]int `json:"df"`
}

// Trailer is the last record: the counts of each record type before it.
type Trailer struct {
	Documents int `json:"documents"`
	Chunks    int `json:"chunks"`
	Images    int `json:"images"`
	// Skipped lists the documents left out because they changed while the
	// archive was written; an import ignores whatever chunks and images
	// of theirs the archive holds.
	Skipped []string `json:"skipped_documents"`
}

// record is one line: its type and the one field that type fills.
type record struct {
	Type     string    `json:"type"`
	Header   *Header   `json:"header,omitempty"`
	Chunk    *Chunk    `json:"chunk,omitempty"`
	Image    *Image    `json:"image,omitempty"`
	Document *Document `json:"document,omitempty"`
	Trailer  *Trailer  `json:"trailer,omitempty"`
}

// section orders the record types: a record may follow only records of its
// own section or an earlier one.
func section(typ string) int {
	switch typ {
	case TypeHeader:
		return 0
	case TypeChunk:
		return 1
	case TypeImage:
		return 2
	case TypeDocument:
		return 3
	case TypeTrailer:
		return 4
	}
	return -1
}
