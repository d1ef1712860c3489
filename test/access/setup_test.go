// Package access_test checks document-level access end to end: one
// namespace with documents shared with eng, with fin, with both and with
// everyone, and keys for each group, an operator and one without groups.
// Every read path, over REST and MCP, must show each key exactly its
// documents, the cache warmed by another group first.
package access_test

import (
	"bytes"
	"net/http"
	"slices"
	"sort"
	"testing"

	"ragd/internal/platform/config"
	"ragd/internal/testkit/stack"
)

const ns = "acl"

// The keys' tokens.
const (
	opsToken  = "tok-ops-0123456789"
	engToken  = "tok-eng-0123456789"
	finToken  = "tok-fin-0123456789"
	noneToken = "tok-none-0123456789"
)

// docTexts are the documents by name: each has the shared words (so one
// query finds them all) and a word of its own.
var docTexts = map[string]string{
	"eng":  "Harbour lighthouse report. The turbine gearbox needs new bearings before winter.",
	"fin":  "Harbour lighthouse report. The invoice for the quarterly budget is overdue.",
	"both": "Harbour lighthouse report. The roadmap covers hiring and the server costs.",
	"all":  "Harbour lighthouse report. The summer picnic is on the beach in July.",
}

// docAccess is each document's access at ingest.
var docAccess = map[string][]string{"eng": {"eng"}, "fin": {"fin"}, "both": {"eng", "fin"}, "all": nil}

// sees is what each key may see.
var sees = map[string][]string{
	opsToken:  {"all", "both", "eng", "fin"},
	engToken:  {"all", "both", "eng"},
	finToken:  {"all", "both", "fin"},
	noneToken: {"all"},
}

// keyOrder warms the cache with the operator first, then a group, so a
// result cached for one audience would be served to the next.
var keyOrder = []string{opsToken, engToken, finToken, noneToken}

var keyName = map[string]string{opsToken: "ops", engToken: "eng", finToken: "fin", noneToken: "none"}

// kb is the started stack and the ids of its documents by name.
type kb struct {
	s    *stack.Stack
	ids  map[string]string // name → document id
	name map[string]string // document id → name
}

func authConfig(t *testing.T, roots ...string) config.Config {
	cfg := stack.Config(t, roots...)
	cfg.Auth.Mode = "static-token"
	cfg.Auth.Keys = []config.AuthKey{
		{Name: "ops", Token: opsToken, Groups: []string{"*"}},
		{Name: "eng", Token: engToken, Groups: []string{"eng"}},
		{Name: "fin", Token: finToken, Groups: []string{"fin"}},
		{Name: "none", Token: noneToken},
	}
	return cfg
}

// start indexes the four documents (as the operator) into a fresh stack.
func start(t *testing.T, roots ...string) *kb {
	t.Helper()
	return startWith(t, authConfig(t, roots...))
}

// startWith is start on a config of the caller's (authConfig's keys).
func startWith(t *testing.T, cfg config.Config) *kb {
	t.Helper()
	return indexDocuments(t, stack.Start(t, cfg, true))
}

// indexDocuments indexes the four documents (as the operator) into s.
func indexDocuments(t *testing.T, s *stack.Stack) *kb {
	t.Helper()
	k := &kb{s: s, ids: map[string]string{}, name: map[string]string{}}
	for _, name := range []string{"eng", "fin", "both", "all"} {
		body := map[string]any{"text": docTexts[name], "title": name, "kb_name": ns, "wait": true}
		if docAccess[name] != nil {
			body["access"] = docAccess[name]
		}
		r := call(t, s, opsToken, http.MethodPost, "/tools/rag_index", body)
		if r.Status != http.StatusOK || r.JSON["status"] != "success" {
			t.Fatalf("index %s: %d %s", name, r.Status, r.Body)
		}
		id, _ := r.JSON["document_id"].(string)
		k.ids[name], k.name[id] = id, name
	}
	return k
}

// call sends method path with body (JSON, or raw bytes) as token.
func call(t testing.TB, s *stack.Stack, token, method, path string, body any) stack.Response {
	t.Helper()
	return s.DoAs(t, token, method, path, body)
}

// callRaw sends a body of its own type.
func callRaw(t *testing.T, k *kb, token, method, path, contentType string, body []byte) stack.Response {
	t.Helper()
	return k.s.DoRaw(t, method, path, contentType, token, bytes.NewReader(body))
}

// names maps document ids to the documents' names, sorted, each once;
// an id of no known document stays as it is, so it shows in a failure.
func (k *kb) names(ids []string) []string {
	var out []string
	for _, id := range ids {
		n, ok := k.name[id]
		if !ok {
			n = id
		}
		out = append(out, n)
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// field collects key's string values of the objects in list.
func field(list any, key string) []string {
	items, _ := list.([]any)
	var out []string
	for _, it := range items {
		m, _ := it.(map[string]any)
		if v, ok := m[key].(string); ok {
			out = append(out, v)
		}
	}
	return out
}

// metaField collects metadata.key of the objects in list (MCP nodes).
func metaField(list any, key string) []string {
	items, _ := list.([]any)
	var out []string
	for _, it := range items {
		m, _ := it.(map[string]any)
		md, _ := m["metadata"].(map[string]any)
		if v, ok := md[key].(string); ok {
			out = append(out, v)
		}
	}
	return out
}
