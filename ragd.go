// Package ragd holds the domain types every part of ragd shares: namespaces,
// documents, chunks, jobs, the Embedder contract and the typed errors the
// service layer returns. Packages named for a dependency (store, embed, cache,
// jobs, …) implement or use these types; cmd/ragd only wires them together.
package ragd

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"
)

// Version is ragd's release version, reported by GET /.
const Version = "0.1.0"

// DefaultNamespace is the namespace used when a request names none.
const DefaultNamespace = "default"

var namespacePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)

// ValidNamespace reports whether name is an acceptable namespace (kb_name).
func ValidNamespace(name string) bool { return namespacePattern.MatchString(name) }

// NamespaceRule describes ValidNamespace for error messages.
const NamespaceRule = "lowercase letters, digits, '_' or '-', starting with a letter or digit, at most 63 characters"

// ResolveNamespace validates kb_name, defaulting to DefaultNamespace; a bad
// name is an Invalid error on the kb_name field.
func ResolveNamespace(kb string) (string, error) {
	if kb == "" {
		return DefaultNamespace, nil
	}
	if !ValidNamespace(kb) {
		return "", Invalid("kb_name", "value_error", "kb_name %q is not a valid namespace: %s", kb, NamespaceRule)
	}
	return kb, nil
}

// SourceType is the kind of source a document was loaded from.
type SourceType string

// The source types ragd can load.
const (
	SourcePDF      SourceType = "pdf"
	SourceDOCX     SourceType = "docx"
	SourceHTML     SourceType = "html"
	SourceMarkdown SourceType = "md"
	SourceText     SourceType = "txt"
	SourceURL      SourceType = "url"
)

// SourceTypes are the source types ragd can load, in the order messages
// list them.
var SourceTypes = []SourceType{SourcePDF, SourceDOCX, SourceHTML, SourceMarkdown, SourceText, SourceURL}

// Valid reports whether t is one of SourceTypes.
func (t SourceType) Valid() bool { return slices.Contains(SourceTypes, t) }

// Document is one indexed source in a namespace, as the registry records it.
type Document struct {
	ID          string     `json:"document_id"`
	Namespace   string     `json:"kb_name"`
	Source      string     `json:"source"`
	SourceType  SourceType `json:"source_type"`
	ContentHash string     `json:"content_hash"`
	// RawHash is the sha256 of the bytes as loaded (file or response body), so
	// the API can spot an unchanged file without parsing it.
	RawHash string   `json:"raw_hash,omitempty"`
	Title   string   `json:"title"`
	Tags    []string `json:"tags,omitempty"`
	// Access lists the groups the document is shared with (NormalizeAccess
	// form); empty, everyone who may use the namespace.
	Access    []string  `json:"access,omitempty" jsonschema:"groups the document is shared with; absent: everyone who may use the namespace"`
	Chunks    int       `json:"chunks"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// FileSize and FileModTime are the file's as it was read (file
	// sources only): a directory sync skips a file whose size and time
	// still match, without reading it.
	FileSize    int64      `json:"file_size,omitempty"`
	FileModTime *time.Time `json:"file_mtime,omitempty"`
	// WebURL and Commit are, for a file of a git source, its page at the
	// commit it was read at (sources.git_web_url) and that commit.
	WebURL string `json:"web_url,omitempty" jsonschema:"for a git source's file, its page at the commit read (the citation)"`
	Commit string `json:"commit,omitempty" jsonschema:"for a git source's file, the commit it was read at"`
}

// Chunk is one retrievable piece of a document, stored as a Weaviate object.
type Chunk struct {
	ID          string     `json:"id"`
	DocumentID  string     `json:"document_id"`
	Namespace   string     `json:"kb_name"`
	Source      string     `json:"source"`
	SourceType  SourceType `json:"source_type"`
	ContentHash string     `json:"content_hash"`
	Index       int        `json:"chunk_index"`
	Text        string     `json:"text"`
	Path        string     `json:"path"`
	Level       int        `json:"level"`
	Summary     string     `json:"summary"`
	Page        int        `json:"page,omitempty"`
	OCR         bool       `json:"ocr,omitempty"` // text read by OCR from a scanned PDF page; may hold misread words
	Tags        []string   `json:"tags,omitempty"`
	// Access is the document's (see Document.Access), kept on every chunk
	// so a search filters by it in the store; never shown.
	Access    []string  `json:"-"`
	Timestamp time.Time `json:"timestamp"`
	Vector    []float32 `json:"-"`
	// Related are words a thesaurus relates to the chunk's own (written at
	// ingest, searched by BM25 at a low weight, never shown): a question
	// in other words than the document's still finds it.
	Related string `json:"-"`
}

// EmbeddingText is what a chunk's vector is computed from: the heading
// trail in front of the body, so a chunk is found by its section as well
// as its words.
func (c Chunk) EmbeddingText() string {
	if c.Path == "" {
		return c.Text
	}
	return c.Path + "\n" + c.Text
}

// DocumentID derives a document's stable id from its namespace and canonical
// source URI: the same source in the same namespace is always the same document.
func DocumentID(namespace, canonicalSource string) string {
	sum := sha256.Sum256([]byte(namespace + "\x00" + canonicalSource))
	return hex.EncodeToString(sum[:16])
}

// ContentHash is the sha256 (hex) of normalized text or raw bytes.
func ContentHash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// chunkNamespace seeds the name-based UUIDs of chunks.
var chunkNamespace = uuid.MustParse("6f1c9a52-3d0e-4b8e-9a57-0c2d6e1f4b21")

// ChunkID derives a chunk's UUID from its document, the document version's
// content hash and its position, so a retried or repeated job writes the same
// objects and never duplicates.
func ChunkID(documentID, contentHash string, index int) string {
	return uuid.NewSHA1(chunkNamespace, []byte(documentID+"/"+contentHash+"/"+strconv.Itoa(index))).String()
}

// ImageID derives a picture's UUID from its document, the document
// version's content hash and its place among the version's pictures, as
// ChunkID does a chunk's (in a space of its own: no image id is a chunk's).
func ImageID(documentID, contentHash string, index int) string {
	return ChunkID(documentID, contentHash+"/image", index)
}
