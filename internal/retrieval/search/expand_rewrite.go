package search

import (
	"context"
	"sync"

	"ragd"

	lru "github.com/hashicorp/golang-lru/v2"

	"ragd/internal/catalog/vocab"
)

// rewritePrompt asks for a hypothetical answer passage (HyDE): written in
// documentation style it uses the documents' vocabulary, which the user's
// question may not, and its words can then match by BM25.
const rewritePrompt = `You help a search engine over technical documentation. Write a short passage ` +
	`(two to four sentences) that could appear in the documentation and answer the user's question, ` +
	`using the terms such documentation would use (names of packages, functions, options, standards). ` +
	`If unsure, still write the most likely passage. Reply with the passage only.`

// rewrites caches hypothetical answers by query: a chat call costs far more
// than the search, and agents repeat queries.
var (
	rewritesOnce sync.Once
	rewrites     *lru.Cache[string, string]
)

// expandRewrite adds the words of a hypothetical answer from the chat model
// at half weight. Without a chat model, or when it fails, the search goes
// on unexpanded: the rewrite is an improvement, never a dependency.
func (s *Service) expandRewrite(ctx context.Context, e *expansion, query string) {
	if s.Rewriter == nil {
		return
	}
	rewritesOnce.Do(func() { rewrites, _ = lru.New[string, string](1024) })
	key := s.Rewriter.Model() + "\x00" + query
	passage, ok := rewrites.Get(key)
	if !ok {
		resp, err := s.Rewriter.Complete(ctx, ragd.ChatRequest{Messages: []ragd.ChatMessage{
			{Role: ragd.RoleSystem, Content: rewritePrompt},
			{Role: ragd.RoleUser, Content: query},
		}})
		if err != nil {
			s.Log.WarnContext(ctx, "query rewrite skipped: chat model failed", "error", err)
			return
		}
		passage = resp.Message.Content
		rewrites.Add(key, passage)
	}
	for _, w := range queryWords(passage) {
		if len(w) > 1 && !vocab.IsStopword(w) {
			e.add(w, rewriteWeight)
		}
	}
}
