package api_test

import (
	"net/http"
	"strings"
	"testing"

	"ragd/internal/testkit/stack"
)

// POST /embedder/switch refuses a field it does not have (422 naming it),
// as the other JSON routes whose every field acts do, and quotes at most a
// bounded part of an unknown embedder's name: it ignored the field, and
// echoed a 1 MB name whole.
func TestEmbedderSwitchRefusals(t *testing.T) {
	t.Parallel()
	s := stack.Start(t, stack.Config(t), false)
	r := s.Do(t, http.MethodPost, "/embedder/switch", map[string]any{"to": "default", "from": "x"})
	if r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), `"loc":["body","from"]`) {
		t.Errorf("unknown field: %d %s; want 422 naming from", r.Status, r.Body)
	}
	long := strings.Repeat("n", 1<<20)
	r = s.Do(t, http.MethodPost, "/embedder/switch", map[string]any{"to": long})
	if r.Status != http.StatusNotFound || len(r.Body) > 400 || !strings.Contains(string(r.Body), "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn") {
		t.Errorf("a 1 MB name: %d, %d bytes %.300s; want a 404 quoting a bounded part of it", r.Status, len(r.Body), r.Body)
	}
}
