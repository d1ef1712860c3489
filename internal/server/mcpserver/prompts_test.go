package mcpserver_test

import (
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func promptText(res *sdk.GetPromptResult) string {
	var b strings.Builder
	for _, m := range res.Messages {
		if tc, ok := m.Content.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// kb_answer embeds the passages retrieved for the question under the
// grounded-answer rules; kb_summarize embeds the document's text. Missing
// arguments, unknown documents and forbidden namespaces are errors.
func testPrompts(t *testing.T, b *beyondTools) {
	list, err := b.all.ListPrompts(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	args := map[string][]string{}
	for _, p := range list.Prompts {
		for _, a := range p.Arguments {
			args[p.Name] = append(args[p.Name], a.Name)
		}
	}
	if !slices.Equal(args["kb_answer"], []string{"question", "kb_name"}) || !slices.Equal(args["kb_summarize"], []string{"document_id", "kb_name"}) {
		t.Fatalf("prompts: %v", args)
	}

	res, err := b.all.GetPrompt(t.Context(), &sdk.GetPromptParams{Name: "kb_answer", Arguments: map[string]string{"question": "What is a data race?", "kb_name": "docs"}})
	if err != nil {
		t.Fatal(err)
	}
	txt := promptText(res)
	sources, _ := res.Meta["sources"].([]any)
	if len(res.Messages) != 1 || res.Messages[0].Role != "user" || len(sources) == 0 || !strings.Contains(txt, "using only the numbered passages") ||
		!strings.Contains(txt, "[1] source: ") || !strings.Contains(txt, "Question: What is a data race?") || !strings.Contains(strings.ToLower(txt), "data race") {
		t.Fatalf("kb_answer: %d messages, %d sources, text %q", len(res.Messages), len(sources), txt[:min(len(txt), 600)])
	}
	if first, _ := sources[0].(map[string]any); first["chunk_id"] == "" || first["document_id"] != b.docID {
		t.Fatalf("kb_answer sources: %v", sources[0])
	}

	res, err = b.all.GetPrompt(t.Context(), &sdk.GetPromptParams{Name: "kb_summarize", Arguments: map[string]string{"document_id": b.financeID}})
	if err != nil {
		t.Fatal(err)
	}
	if txt := promptText(res); !strings.Contains(txt, b.financeText) || !strings.Contains(txt, "Summarize this document.") ||
		strings.Contains(txt, "only its beginning") || res.Meta["truncated"] != false || res.Meta["kb_name"] != "finance" {
		t.Fatalf("kb_summarize of a short document: %v %q", res.Meta, txt)
	}
	// The manual is longer than the bound: cut, and the prompt says so.
	res, err = b.all.GetPrompt(t.Context(), &sdk.GetPromptParams{Name: "kb_summarize", Arguments: map[string]string{"document_id": b.manualID, "kb_name": "docs"}})
	if err != nil {
		t.Fatal(err)
	}
	if txt := promptText(res); res.Meta["truncated"] != true || !strings.Contains(txt, "only its beginning") || len(txt) > 26000 ||
		!strings.Contains(txt, "# Manual\n\nThis manual explains the machine.") || !strings.Contains(txt, "## Part 3\n") ||
		!strings.Contains(res.Description, "only its beginning") {
		t.Fatalf("kb_summarize of a long document: meta %v, %d bytes, description %q", res.Meta, len(txt), res.Description)
	}

	for _, c := range []struct {
		cs   *sdk.ClientSession
		name string
		args map[string]string
		want string
	}{
		{b.all, "kb_answer", map[string]string{"kb_name": "docs"}, "needs the question argument"},
		{b.all, "kb_summarize", nil, "needs the document_id argument"},
		{b.all, "kb_summarize", map[string]string{"document_id": "0123456789abcdef"}, "not found"},
		{b.fin, "kb_answer", map[string]string{"question": "data race", "kb_name": "docs"}, "forbidden"},
		{b.fin, "kb_summarize", map[string]string{"document_id": b.docID, "kb_name": "docs"}, "forbidden"},
		{b.fin, "kb_summarize", map[string]string{"document_id": b.docID}, "not found"}, // looked up among finance's only
		{b.all, "kb_answer", map[string]string{"question": "x", "kb_name": "Bad Name"}, "namespace"},
		{b.all, "no_such_prompt", nil, "unknown prompt"},
	} {
		if _, err := c.cs.GetPrompt(t.Context(), &sdk.GetPromptParams{Name: c.name, Arguments: c.args}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: want an error with %q, got %v", c.name, c.args, c.want, err)
		}
	}
}

func complete(t *testing.T, cs *sdk.ClientSession, ref *sdk.CompleteReference, arg, value string, ctxArgs map[string]string) sdk.CompletionResultDetails {
	t.Helper()
	p := &sdk.CompleteParams{Ref: ref, Argument: sdk.CompleteParamsArgument{Name: arg, Value: value}}
	if ctxArgs != nil {
		p.Context = &sdk.CompleteContext{Arguments: ctxArgs}
	}
	res, err := cs.Complete(t.Context(), p)
	if err != nil {
		t.Fatalf("complete %s=%q: %v", arg, value, err)
	}
	return res.Completion
}

// kb_name completes to the namespaces the key may use, document_id to the
// ids of the namespace in context (else default), for prompts, resource
// templates and (named as prompts) tools, at most 100 values.
func testCompletions(t *testing.T, b *beyondTools) {
	answer := &sdk.CompleteReference{Type: "ref/prompt", Name: "kb_answer"}
	docTemplate := &sdk.CompleteReference{Type: "ref/resource", URI: "ragd://{kb_name}/documents/{document_id}"}
	if got := complete(t, b.all, answer, "kb_name", "", nil); !slices.Equal(got.Values, []string{"bulk", "docs", "finance"}) || got.HasMore {
		t.Errorf("kb_name \"\": %+v", got)
	}
	if got := complete(t, b.all, docTemplate, "kb_name", "d", nil); !slices.Equal(got.Values, []string{"docs"}) {
		t.Errorf("kb_name \"d\" on the document template: %+v", got)
	}
	if got := complete(t, b.fin, answer, "kb_name", "", nil); !slices.Equal(got.Values, []string{"finance"}) {
		t.Errorf("finance key, kb_name \"\": %+v", got)
	}
	if got := complete(t, b.all, &sdk.CompleteReference{Type: "ref/prompt", Name: "core_query"}, "kb_name", "fi", nil); !slices.Equal(got.Values, []string{"finance"}) {
		t.Errorf("core_query kb_name \"fi\": %+v", got)
	}
	summarize := &sdk.CompleteReference{Type: "ref/prompt", Name: "kb_summarize"}
	if got := complete(t, b.all, summarize, "document_id", b.docID[:4], map[string]string{"kb_name": "docs"}); !slices.Equal(got.Values, []string{b.docID}) || got.HasMore {
		t.Errorf("document_id %q in docs: %+v", b.docID[:4], got)
	}
	if got := complete(t, b.all, docTemplate, "document_id", "", map[string]string{"kb_name": "bulk"}); len(got.Values) != 100 || !got.HasMore {
		t.Errorf("document_id \"\" in bulk (205 documents): %d values, hasMore %v", len(got.Values), got.HasMore)
	}
	if got := complete(t, b.all, summarize, "document_id", b.docID[:4], nil); len(got.Values) != 0 {
		t.Errorf("document_id without kb_name looks in default, which is empty: %+v", got)
	}
	if got := complete(t, b.fin, summarize, "document_id", "", map[string]string{"kb_name": "docs"}); len(got.Values) != 0 {
		t.Errorf("finance key, document_id in docs: %+v", got)
	}
	if got := complete(t, b.all, answer, "question", "what", nil); len(got.Values) != 0 {
		t.Errorf("question completes to nothing: %+v", got)
	}
	_, err := b.all.Complete(t.Context(), &sdk.CompleteParams{Ref: &sdk.CompleteReference{Type: "ref/prompt", Name: "nope"},
		Argument: sdk.CompleteParamsArgument{Name: "kb_name"}})
	if err == nil || !strings.Contains(err.Error(), "unknown prompt") {
		t.Errorf("unknown prompt: %v", err)
	}
}
