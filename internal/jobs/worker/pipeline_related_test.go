package worker_test

import (
	"context"
	"testing"

	"github.com/weaviate/weaviate-go-client/v5/weaviate"

	"ragd"
	"ragd/internal/jobs"
	"ragd/internal/testkit/stack"
)

// mapThesaurus relates each word to a fixed list.
type mapThesaurus map[string][]string

func (m mapThesaurus) Related(word string, _ int) []string { return m[word] }
func (m mapThesaurus) BaseForms(word string) []string      { return []string{word} }

// The pipeline stores related words with each chunk only when it has a
// thesaurus: the same document indexed with one carries them and a Related
// search finds it by a word it never says; indexed without one it carries
// none.
func TestPipelineStoresRelatedWordsOnlyWithThesaurus(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := stack.Config(t)
	s := stack.Start(t, cfg, false)
	raw, err := weaviate.NewClient(weaviate.Config{Host: hostPort(cfg.Weaviate.URL), Scheme: "http"})
	if err != nil {
		t.Fatal(err)
	}
	th := mapThesaurus{"priority": {"precedence", "task"}}

	for _, tc := range []struct {
		ns      string
		th      ragd.Thesaurus
		related string
	}{
		{"with-thesaurus", th, "precedence"},
		{"without-thesaurus", nil, ""},
	} {
		p := *s.Pipeline
		p.Thesaurus = tc.th
		res, err := p.IndexDocument(ctx, jobs.DocumentPayload{Namespace: tc.ns, DocumentID: "doc", Source: "text://doc",
			Text: "Each task has a priority that decides its order."}, &jobs.Reporter{})
		if err != nil {
			t.Fatalf("%s: index: %v", tc.ns, err)
		}
		if res.ChunksIndexed != 1 {
			t.Fatalf("%s: %d chunks, want 1", tc.ns, res.ChunksIndexed)
		}

		objs, err := raw.Data().ObjectsGetter().WithClassName(cfg.Weaviate.Collection).WithTenant(tc.ns).
			WithID(ragd.ChunkID("doc", res.ContentHash, 0)).Do(ctx)
		if err != nil || len(objs) != 1 {
			t.Fatalf("%s: read chunk: %d objects, %v", tc.ns, len(objs), err)
		}
		props, _ := objs[0].Properties.(map[string]any)
		if got, _ := props["related"].(string); got != tc.related {
			t.Errorf("%s: stored related = %q, want %q", tc.ns, got, tc.related)
		}

		hits, err := s.Chunks.Search(ctx, tc.ns, ragd.ChunkQuery{Text: "precedence", Mode: ragd.ModeKeyword, Related: true, Limit: 5})
		if err != nil {
			t.Fatalf("%s: related search: %v", tc.ns, err)
		}
		if want := len(tc.related) > 0; (len(hits) == 1) != want || len(hits) > 1 {
			t.Errorf("%s: related search for a related word: %d hits, want found=%v", tc.ns, len(hits), want)
		}
	}
}
