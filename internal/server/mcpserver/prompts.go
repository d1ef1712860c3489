package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ragd"
	"ragd/internal/retrieval/answer"
	"ragd/internal/retrieval/search"
)

// The prompts, for an agent host to run on its own model.
var (
	kbAnswerPrompt = &sdk.Prompt{Name: "kb_answer", Title: "Answer from the knowledge base",
		Description: "A grounded-answer prompt: the passages retrieved for the question, numbered, and the rules to answer only from them, " +
			"citing them as [n]. _meta.sources lists the passages in order (chunk_id, document_id, source, path).",
		Arguments: []*sdk.PromptArgument{
			{Name: "question", Description: "the question to answer from the documents", Required: true},
			{Name: "kb_name", Description: "namespace to search (default: default)"},
		}}
	kbSummarizePrompt = &sdk.Prompt{Name: "kb_summarize", Title: "Summarize a document",
		Description: fmt.Sprintf("A prompt to summarize one indexed document from its text (at most %d characters of it; "+
			"a longer document is cut and the prompt says so).", answer.MaxSummaryChars),
		Arguments: []*sdk.PromptArgument{
			{Name: "document_id", Description: "the document, as core_list_documents, resources/list or a search result names it", Required: true},
			{Name: "kb_name", Description: "its namespace (default: looked up among those you may read)"},
		}}
)

func (m *Server) addPrompts() {
	m.server.AddPrompt(kbAnswerPrompt, m.kbAnswer)
	m.server.AddPrompt(kbSummarizePrompt, m.kbSummarize)
}

func (m *Server) kbAnswer(ctx context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
	args := req.Params.Arguments
	question := strings.TrimSpace(args["question"])
	if question == "" {
		return nil, missingArgument("kb_answer", "question")
	}
	p, err := m.svc.Answer.GroundedPrompt(callerContext(ctx, req.Extra), search.RetrieveRequest{Query: question, KBName: args["kb_name"]})
	if err != nil {
		return nil, requestError(m.log, "prompts/get", err)
	}
	kb := args["kb_name"]
	if kb == "" {
		kb = ragd.DefaultNamespace
	}
	return &sdk.GetPromptResult{
		Description: fmt.Sprintf("Answer %q from %d passages of namespace %s", question, len(p.Sources), kb),
		Messages:    promptMessages(p.Messages),
		Meta:        sdk.Meta{"sources": p.Sources, "kb_name": kb},
	}, nil
}

func (m *Server) kbSummarize(ctx context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
	args := req.Params.Arguments
	id := strings.TrimSpace(args["document_id"])
	if id == "" {
		return nil, missingArgument("kb_summarize", "document_id")
	}
	t, err := m.svc.Library.DocumentText(callerContext(ctx, req.Extra), args["kb_name"], id, answer.MaxSummaryChars)
	if err != nil {
		return nil, requestError(m.log, "prompts/get", err)
	}
	title := t.Document.Title
	if title == "" {
		title = t.Document.Source
	}
	desc := fmt.Sprintf("Summarize %s (%s, namespace %s)", title, t.Document.Source, t.Document.Namespace)
	if t.Truncated {
		desc += fmt.Sprintf("; the document is longer than %d characters and only its beginning is given", answer.MaxSummaryChars)
	}
	return &sdk.GetPromptResult{
		Description: desc,
		Messages:    promptMessages(answer.SummaryMessages(title, t.Markdown, t.Truncated)),
		Meta: sdk.Meta{"document_id": t.Document.ID, "kb_name": t.Document.Namespace, "truncated": t.Truncated,
			"document_uri": documentURI(t.Document.Namespace, t.Document.ID)},
	}, nil
}

// promptMessages turns chat messages into prompt messages. MCP prompts
// have no system role, so the system message leads the first user
// message.
func promptMessages(msgs []ragd.ChatMessage) []*sdk.PromptMessage {
	var out []*sdk.PromptMessage
	system := ""
	for _, msg := range msgs {
		switch msg.Role {
		case ragd.RoleSystem:
			system += msg.Content + "\n\n"
		case ragd.RoleAssistant:
			out = append(out, &sdk.PromptMessage{Role: "assistant", Content: &sdk.TextContent{Text: msg.Content}})
		default:
			out = append(out, &sdk.PromptMessage{Role: "user", Content: &sdk.TextContent{Text: system + msg.Content}})
			system = ""
		}
	}
	return out
}

func missingArgument(prompt, name string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("invalid input: %s needs the %s argument", prompt, name)}
}
