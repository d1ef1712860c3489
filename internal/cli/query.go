package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"ragd/wire"

	"ragd/client"
)

// retrievalFlags are the flags search and ask share.
type retrievalFlags struct {
	kb, mode string
	topK     int
}

func (r *retrievalFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&r.kb, "kb", "", "namespace (default: default)")
	fs.StringVar(&r.mode, "mode", "", "hybrid (default), vector or keyword; ask also takes agentic and auto")
	fs.IntVar(&r.topK, "top-k", 0, fmt.Sprintf("passages to return or answer from, 1-%d (default %d)", wire.MaxTopK, wire.DefaultTopK))
}

// request is the retrieval the flags and QUERY words ask for.
func (r *retrievalFlags) request(words []string) (wire.RetrieveRequest, error) {
	req := wire.RetrieveRequest{Query: strings.Join(words, " "), KBName: r.kb, Mode: r.mode}
	if strings.TrimSpace(req.Query) == "" {
		return req, usageErrorf("the query is empty")
	}
	if r.topK != 0 {
		if r.topK < 1 || r.topK > wire.MaxTopK {
			return req, usageErrorf("--top-k must be between 1 and %d, not %d", wire.MaxTopK, r.topK)
		}
		req.TopK = &r.topK
	}
	return req, nil
}

// retrieval parses search's and ask's shared flags and QUERY words into
// their request, and opens the client both send it with.
func (s *session) retrieval(args []string) (wire.RetrieveRequest, *client.Client, error) {
	fs := s.flags()
	var rf retrievalFlags
	rf.register(fs)
	words, err := s.parse(fs, args, 1, -1)
	if err != nil {
		return wire.RetrieveRequest{}, nil, err
	}
	req, err := rf.request(words)
	if err != nil {
		return req, nil, err
	}
	c, err := s.client()
	return req, c, err
}

// runSearch: ragd search QUERY.
func runSearch(ctx context.Context, s *session, args []string) error {
	req, c, err := s.retrieval(args)
	if err != nil {
		return err
	}
	resp, err := c.Search(ctx, req)
	if err != nil {
		return err
	}
	if s.globals.json {
		return s.emit(resp)
	}
	if resp.Notice != "" {
		return errors.New(resp.Notice) // nothing to search: exit 1, not "no match"
	}
	if len(resp.Results) == 0 {
		s.printf("no passages match %q\n", resp.Query)
		return nil
	}
	for i, r := range resp.Results {
		s.printf("[%d] %.3f  %s\n", i+1, r.Score, citation(r.Source, r.Page, r.Path))
		s.printf("    %s\n", oneLine(r.Text, 300))
	}
	return nil
}

// runAsk: ragd ask QUERY, the answer and its numbered sources.
func runAsk(ctx context.Context, s *session, args []string) error {
	req, c, err := s.retrieval(args)
	if err != nil {
		return err
	}
	resp, err := c.Query(ctx, wire.QueryRequest{RetrieveRequest: req})
	if err != nil {
		return err
	}
	if s.globals.json {
		return s.emit(resp)
	}
	s.printf("%s\n", strings.TrimSpace(resp.Answer))
	if len(resp.Sources) > 0 {
		s.printf("\nSources:\n")
	}
	for i, src := range resp.Sources {
		s.printf("[%d] %s\n", i+1, citation(src.Source, src.Page, src.Path))
	}
	note := "answered by " + resp.Route
	if resp.Fallback != "" {
		note += " (" + resp.Fallback + ")"
	}
	s.printf("\n(%s)\n", note)
	return nil
}

// citation is a source as people read it: "source, page 3, Title > Section".
func citation(source string, page int, path string) string {
	parts := []string{source}
	if page > 0 {
		parts = append(parts, fmt.Sprintf("page %d", page))
	}
	if path != "" {
		parts = append(parts, path)
	}
	return strings.Join(parts, ", ")
}
