package archive

import (
	"errors"
	"slices"

	"ragd"
	ingestdoc "ragd/internal/ingest/document"
)

// admission holds an archive's records to what an ingest holds a
// document to, with the same definitions: titles (ragd.ValidTitle), tags
// (ragd.ValidTags, on the document and on each chunk), chunk text
// (ragd.MaxChunkTextBytes), pictures per document
// (document.MaxImages) and sources of the kinds ragd indexes
// (admit_source.go). The format's own checks (ids, vectors, counts) are
// validate.go's. One value serves one validation: the header tells it
// the namespace the archive's upload sources name.
type admission struct {
	embedder Embedder
	from     string
}

// Admit is the Rules an archive uploaded to, or stored on, a server that
// embeds with embedder is validated with: the format's checks, what an
// ingest holds a document to, and vectors of embedder only.
func Admit(embedder Embedder) Rules {
	r := &admission{embedder: embedder}
	return Rules{Header: r.header, Chunk: r.chunk, Image: r.image, Document: r.document}
}

func (r *admission) header(h Header) error {
	r.from = h.KBName
	if h.Embedder != r.embedder {
		return ragd.Invalid("embedder", "value_error",
			"the archive's vectors come from embedder %s (dimension %d) but this server embeds with %s (dimension %d); "+
				"vectors of two models cannot be searched together: import the archive into a ragd configured with %s, "+
				"or index its sources again here", h.Embedder.Name, h.Embedder.Dimension, r.embedder.Name, r.embedder.Dimension, h.Embedder.Name)
	}
	return nil
}

func (r *admission) document(d *Document) error {
	if err := refusal("title", ragd.ValidTitle(d.Document.Title)); err != nil {
		return err
	}
	if err := refusal("tags", ragd.ValidTags(d.Document.Tags)); err != nil {
		return err
	}
	if err := validStoredAccess(d.Document.Access); err != nil {
		return err
	}
	return r.source(d.Document)
}

// chunk checks a chunk's text, no longer than the chunker makes one
// (ragd.MaxChunkTextBytes), and its tags: an ingest writes the
// document's on each.
func (r *admission) chunk(c *Chunk) error {
	if err := validStoredAccess(c.Access); err != nil {
		return err
	}
	if len(c.Text) > ragd.MaxChunkTextBytes {
		return Refuse("text", "text of %d bytes: an ingest makes no chunk of more than %d bytes", len(c.Text),
			ragd.MaxChunkTextBytes)
	}
	return refusal("tags", ragd.ValidTags(c.Tags))
}

// validStoredAccess refuses an access list ragd would not have written:
// one NormalizeAccess refuses or would change (the validator compares
// the chunks' and the document's as written).
func validStoredAccess(access []string) error {
	n, err := ragd.NormalizeAccess("access", access)
	if err != nil {
		return refusal("access", err)
	}
	if !slices.Equal(n, access) && len(access) > 0 {
		return Refuse("access", "access %v is not sorted, unique and without \"*\", as ragd writes it", access)
	}
	return nil
}

// image checks a picture's index, which an ingest keeps below
// ingestdoc.MaxImages (and so as many pictures at most).
func (r *admission) image(im *Image) error {
	if err := validStoredAccess(im.Access); err != nil {
		return err
	}
	if im.Index >= ingestdoc.MaxImages {
		return Refuse("image_index", "image_index %d: an ingest keeps at most %d pictures of a document", im.Index,
			ingestdoc.MaxImages)
	}
	return nil
}

// refusal turns a request check's error into the archive's refusal of
// field, with the check's own message.
func refusal(field string, err error) error {
	var re *ragd.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &re):
		return Refuse(field, "%s", re.Message)
	default:
		return Refuse(field, "%v", err)
	}
}

// EmbedderOf is e as an archive's header names it.
func EmbedderOf(e ragd.Embedder) Embedder {
	return Embedder{Name: e.Name(), Dimension: e.Dimension()}
}

// DefaultPageSize is how many chunks an export reads, and an import
// writes, per store call unless told otherwise.
const DefaultPageSize = 200

// PageSize is n, or DefaultPageSize when n is not positive.
func PageSize(n int) int {
	if n <= 0 {
		return DefaultPageSize
	}
	return n
}
