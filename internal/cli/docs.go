package cli

import (
	"context"
	"strconv"

	"ragd/wire"
)

// runDocs: ragd docs, every document of a namespace (all pages).
func runDocs(ctx context.Context, s *session, args []string) error {
	fs := s.flags()
	kb := fs.String("kb", "", "namespace (default: default)")
	if _, err := s.parse(fs, args, 0, 0); err != nil {
		return err
	}
	c, err := s.client()
	if err != nil {
		return err
	}
	list, err := c.AllDocuments(ctx, wire.ListRequest{KBName: *kb})
	if err != nil {
		return err
	}
	if s.globals.json {
		return s.emit(list)
	}
	if len(list.Documents) == 0 {
		s.printf("no documents in %s\n", list.KBName)
		return nil
	}
	rows := make([][]string, len(list.Documents))
	for i, d := range list.Documents {
		rows[i] = []string{d.ID, string(d.SourceType), strconv.Itoa(d.Chunks), stamp(d.UpdatedAt), oneLine(d.Source, 60), oneLine(d.Title, 40)}
	}
	table(s.env.Stdout, []string{"DOCUMENT", "TYPE", "CHUNKS", "UPDATED", "SOURCE", "TITLE"}, rows)
	s.printf("%d documents in %s\n", list.Count, list.KBName)
	return nil
}

// runRemove: ragd rm DOC.
func runRemove(ctx context.Context, s *session, args []string) error {
	fs := s.flags()
	kb := fs.String("kb", "", "namespace (default: every namespace the key may use)")
	pos, err := s.parse(fs, args, 1, 1)
	if err != nil {
		return err
	}
	c, err := s.client()
	if err != nil {
		return err
	}
	res, err := c.DeleteDocument(ctx, *kb, pos[0])
	if err != nil {
		return err
	}
	if s.globals.json {
		return s.emit(res)
	}
	s.printf("deleted %s from %s (%d chunks)\n", res.DocumentID, res.KBName, res.ChunksDeleted)
	return nil
}
