package websearchapi

import (
	"context"
	"encoding/json"

	"ragd/internal/adapter/websearch"
)

type searchResult struct {
	Results []websearch.Result `json:"results"`
	Count   int                `json:"count"`
}

// search runs the search_topic tool: {query | topic, max_results}.
func (s *Server) search(ctx context.Context, params json.RawMessage) (any, *rpcError) {
	p, rerr := objectParams(params)
	if rerr != nil {
		return nil, rerr
	}
	query, rerr := stringParam(p, "query")
	if rerr != nil {
		return nil, rerr
	}
	if query == "" {
		if query, rerr = stringParam(p, "topic"); rerr != nil {
			return nil, rerr
		}
	}
	maxResults, rerr := maxResultsParam(p)
	if rerr != nil {
		return nil, rerr
	}
	if rerr := checkArgs(query, maxResults); rerr != nil {
		return nil, rerr
	}
	if s.p == nil {
		return nil, notConfigured()
	}
	res, err := s.p.Search(ctx, query, maxResults)
	if err != nil {
		s.logFailure(ctx, "jsonrpc", err)
		return nil, s.failure(err)
	}
	if res == nil {
		res = []websearch.Result{} // "results": [], never null
	}
	res = res[:min(len(res), maxResults)] // whatever the provider does
	return searchResult{Results: res, Count: len(res)}, nil
}
