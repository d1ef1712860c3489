package access_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ragd/internal/testkit/stack"
)

func connect(t *testing.T, k *kb, token string) *sdk.ClientSession {
	t.Helper()
	client := sdk.NewClient(&sdk.Implementation{Name: "ragd-access-test", Version: "1"}, nil)
	tr := &sdk.StreamableClientTransport{Endpoint: k.s.URL + "/mcp", HTTPClient: &http.Client{Transport: stack.Bearer(token)}}
	cs, err := client.Connect(t.Context(), tr, nil)
	if err != nil {
		t.Fatalf("connect as %s: %v", keyName[token], err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// tool calls an MCP tool and returns its structured result as JSON.
func tool(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) map[string]any {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("%s: %v %+v", name, err, res)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return out
}

// Over MCP each key sees exactly its documents: the search, answer and
// listing tools (the cache warmed by another audience first), resources
// listed and read, document id completions and prompts built from a
// document.
func TestMCPReadPaths(t *testing.T) {
	t.Parallel()
	k := start(t)
	sessions := map[string]*sdk.ClientSession{}
	for _, token := range keyOrder {
		sessions[token] = connect(t, k, token)
	}
	for round := range 2 {
		for _, token := range keyOrder {
			cs, want := sessions[token], sees[token]
			for _, mode := range []string{"hybrid", "keyword", "vector"} {
				out := tool(t, cs, "core_retrieve_text", map[string]any{"query": "harbour lighthouse report", "kb_name": ns, "top_k": 10, "mode": mode})
				if got := k.names(metaField(out["results"], "document_id")); !slices.Equal(got, want) {
					t.Fatalf("round %d, core_retrieve_text %s as %s: %v, want %v", round, mode, keyName[token], got, want)
				}
			}
			out := tool(t, cs, "core_query", map[string]any{"query": "harbour lighthouse report", "kb_name": ns, "top_k": 10})
			if got := k.names(field(out["sources"], "document_id")); !slices.Equal(got, want) {
				t.Fatalf("core_query as %s: sources from %v, want %v", keyName[token], got, want)
			}
			out = tool(t, cs, "core_list_documents", map[string]any{"kb_name": ns})
			if got := k.names(field(out["documents"], "document_id")); !slices.Equal(got, want) {
				t.Fatalf("core_list_documents as %s: %v, want %v", keyName[token], got, want)
			}
		}
	}
	for _, token := range keyOrder {
		checkResources(t, k, sessions[token], token)
		checkCompletions(t, k, sessions[token], token)
	}
}

// checkResources: resources/list lists the visible documents only, and
// reading a hidden document or one of its chunks is "Resource not found",
// as for a missing one; a prompt built from a hidden document is refused.
func checkResources(t *testing.T, k *kb, cs *sdk.ClientSession, token string) {
	t.Helper()
	want := sees[token]
	var listed []string
	for cursor := ""; ; {
		res, err := cs.ListResources(t.Context(), &sdk.ListResourcesParams{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Resources {
			listed = append(listed, r.URI[strings.LastIndexByte(r.URI, '/')+1:])
		}
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	if got := k.names(listed); !slices.Equal(got, want) {
		t.Fatalf("resources/list as %s: %v, want %v", keyName[token], got, want)
	}
	chunks := map[string]string{} // document name → a chunk id, as the operator found it
	ops := call(t, k.s, opsToken, http.MethodPost, "/tools/rag_search", map[string]any{"query": "harbour lighthouse report", "kb_name": ns, "top_k": 10})
	items, _ := ops.JSON["results"].([]any)
	for _, it := range items {
		m := it.(map[string]any)
		chunks[k.name[m["document_id"].(string)]] = m["id"].(string)
	}
	for name, id := range k.ids {
		visible := slices.Contains(want, name)
		for _, uri := range []string{"ragd://" + ns + "/documents/" + id, "ragd://" + ns + "/chunks/" + chunks[name]} {
			res, err := cs.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: uri})
			switch {
			case visible && (err != nil || !strings.Contains(res.Contents[0].Text, strings.Fields(docTexts[name])[4])):
				t.Fatalf("read %s as %s: %v", uri, keyName[token], err)
			case !visible && !notFound(err):
				t.Fatalf("read hidden %s as %s: %v, want Resource not found", uri, keyName[token], err)
			}
		}
		_, err := cs.GetPrompt(t.Context(), &sdk.GetPromptParams{Name: "kb_summarize", Arguments: map[string]string{"document_id": id, "kb_name": ns}})
		if visible != (err == nil) {
			t.Fatalf("kb_summarize %s as %s: %v", name, keyName[token], err)
		}
	}
	res, err := cs.GetPrompt(t.Context(), &sdk.GetPromptParams{Name: "kb_answer", Arguments: map[string]string{"question": "harbour lighthouse report", "kb_name": ns}})
	if err != nil {
		t.Fatalf("kb_answer as %s: %v", keyName[token], err)
	}
	var prompt strings.Builder
	for _, m := range res.Messages {
		if tc, ok := m.Content.(*sdk.TextContent); ok {
			prompt.WriteString(tc.Text)
		}
	}
	checkWords(t, "kb_answer prompt as "+keyName[token], prompt.String(), want)
}

func notFound(err error) bool {
	var re *jsonrpc.Error
	return errors.As(err, &re) && re.Code == sdk.CodeResourceNotFound && re.Message == "Resource not found"
}

// checkCompletions: a document_id completes to visible documents only.
func checkCompletions(t *testing.T, k *kb, cs *sdk.ClientSession, token string) {
	t.Helper()
	ref := &sdk.CompleteReference{Type: "ref/resource", URI: "ragd://{kb_name}/documents/{document_id}"}
	res, err := cs.Complete(t.Context(), &sdk.CompleteParams{Ref: ref, Argument: sdk.CompleteParamsArgument{Name: "document_id", Value: ""},
		Context: &sdk.CompleteContext{Arguments: map[string]string{"kb_name": ns}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := k.names(res.Completion.Values); !slices.Equal(got, sees[token]) {
		t.Fatalf("document_id completion as %s: %v, want %v", keyName[token], got, sees[token])
	}
}
