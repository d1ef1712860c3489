package library

import (
	"errors"
	"slices"

	"ragd"
	"ragd/internal/catalog/archive"
	"ragd/internal/ingest/document"
)

// importRules hold an archive's records to what an ingest holds a
// document to, with the same definitions: titles (validTitle), tags
// (validTags, on the document and on each chunk), chunk text
// (ragd.MaxChunkTextBytes), pictures per document
// (document.MaxImages) and sources of the kinds ragd indexes
// (importsource.go). The format's own checks (ids, vectors, counts) are
// package archive's. One value serves one validation: the header tells it
// the namespace the archive's upload sources name.
type importRules struct {
	a    *Archiver
	from string
}

// rules are the Rules an uploaded or stored archive is validated with.
func (a *Archiver) rules() archive.Rules {
	r := &importRules{a: a}
	return archive.Rules{Header: r.header, Chunk: r.chunk, Image: r.image, Document: r.document}
}

func (r *importRules) header(h archive.Header) error {
	r.from = h.KBName
	return r.a.accept(h)
}

func (r *importRules) document(d *archive.Document) error {
	if err := refusal("title", validTitle(d.Document.Title)); err != nil {
		return err
	}
	if err := refusal("tags", validTags(d.Document.Tags)); err != nil {
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
func (r *importRules) chunk(c *archive.Chunk) error {
	if err := validStoredAccess(c.Access); err != nil {
		return err
	}
	if len(c.Text) > ragd.MaxChunkTextBytes {
		return archive.Refuse("text", "text of %d bytes: an ingest makes no chunk of more than %d bytes", len(c.Text),
			ragd.MaxChunkTextBytes)
	}
	return refusal("tags", validTags(c.Tags))
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
		return archive.Refuse("access", "access %v is not sorted, unique and without \"*\", as ragd writes it", access)
	}
	return nil
}

// image checks a picture's index, which an ingest keeps below
// document.MaxImages (and so as many pictures at most).
func (r *importRules) image(im *archive.Image) error {
	if err := validStoredAccess(im.Access); err != nil {
		return err
	}
	if im.Index >= document.MaxImages {
		return archive.Refuse("image_index", "image_index %d: an ingest keeps at most %d pictures of a document", im.Index,
			document.MaxImages)
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
		return archive.Refuse(field, "%s", re.Message)
	default:
		return archive.Refuse(field, "%v", err)
	}
}
