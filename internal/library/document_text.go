package library

import (
	"context"

	"ragd"
	"ragd/internal/authn"
)

// DocumentText is a document's text rebuilt from its chunks.
type DocumentText struct {
	Document ragd.Document
	// Markdown is the text with its headings, without front matter (see
	// FrontMatter).
	Markdown string
	// Truncated is set when the text was cut to the size asked for; it
	// then ends at a chunk's end.
	Truncated bool
}

// documentChunkPage is how many chunks one store read brings.
const documentChunkPage = 500

// DocumentText returns the current version of a document the caller may
// read as markdown, at most about maxBytes of it (whole chunks; the first
// always, however long), read from its chunks in chunk_index order. With
// kb empty every namespace the caller may see is searched.
func (s *Service) DocumentText(ctx context.Context, kb, id string, maxBytes int) (DocumentText, error) {
	doc, err := s.Document(ctx, kb, id)
	if err != nil {
		return DocumentText{}, err
	}
	w := newMarkdownWriter(doc.Title)
	out := DocumentText{Document: *doc}
	for from, first := 0, true; ; {
		page, err := s.Store.DocumentChunks(ctx, doc.Namespace, doc.ID, doc.ContentHash, from, documentChunkPage)
		if err != nil {
			return DocumentText{}, err
		}
		for _, c := range page {
			if !first && w.b.Len()+len(c.Text)+2 > maxBytes {
				out.Truncated = true
				out.Markdown = w.String()
				return out, nil
			}
			w.add(c)
			first = false
		}
		if len(page) < documentChunkPage {
			break
		}
		from = page[len(page)-1].Index + 1
	}
	out.Markdown = w.String()
	return out, nil
}

// ChunkText is one chunk and the document it belongs to.
type ChunkText struct {
	Chunk    ragd.Chunk
	Document ragd.Document
}

// Chunk returns a chunk of the current version of a document the caller
// may read: the chunk ids search results and answer sources name. A
// chunk of a version since replaced, or of a deleted document, is not
// found.
func (s *Service) Chunk(ctx context.Context, kb, id string) (ChunkText, error) {
	ns, err := authn.Namespace(ctx, kb)
	if err != nil {
		return ChunkText{}, err
	}
	c, err := s.Store.Chunk(ctx, ns, id)
	if err != nil {
		return ChunkText{}, err
	}
	if c == nil {
		return ChunkText{}, ragd.NotFound("chunk %s not found in namespace %s", id, ns)
	}
	doc, err := s.Registry.Get(ctx, ns, c.DocumentID)
	if err != nil {
		if ragd.KindOf(err) == ragd.KindNotFound { // missing, or hidden from the caller
			return ChunkText{}, ragd.NotFound("chunk %s not found in namespace %s", id, ns)
		}
		return ChunkText{}, ragd.Unavailable("redis", err)
	}
	if doc.ContentHash != c.ContentHash {
		return ChunkText{}, ragd.NotFound("chunk %s is of a version of document %s that is no longer current", id, doc.ID)
	}
	return ChunkText{Chunk: *c, Document: *doc}, nil
}
