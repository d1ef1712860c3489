package mcpserver

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ragd"
)

// MaxCompletions is the most values one completion/complete answers, as
// the protocol allows.
const MaxCompletions = 100

// complete answers completion/complete for the kb_name and document_id
// arguments: namespaces the caller may use that start with the typed
// value, and ids of the documents, starting with it, of the namespace the
// other arguments name (context.arguments.kb_name), else of the default
// namespace. The reference is a prompt or one of the resource templates;
// the protocol cannot name a tool, so a ref/prompt naming one of ragd's
// tools is completed too, for clients that complete tool arguments so.
// Other arguments complete to nothing.
func (m *Server) complete(ctx context.Context, req *sdk.CompleteRequest) (*sdk.CompleteResult, error) {
	ref := req.Params.Ref
	switch {
	case ref.Type == "ref/prompt" && !m.completable[ref.Name]:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown prompt %q", ref.Name)}
	case ref.Type == "ref/resource" && ref.URI != documentTemplate && ref.URI != chunkTemplate:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown resource template %q", ref.URI)}
	}
	ctx = callerContext(ctx, req.Extra)
	value := req.Params.Argument.Value
	res := &sdk.CompleteResult{Completion: sdk.CompletionResultDetails{Values: []string{}}}
	switch req.Params.Argument.Name {
	case "kb_name":
		values, total, err := m.svc.Library.NamespacesMatching(ctx, value, MaxCompletions)
		if err != nil {
			return nil, requestError(m.log, "completion/complete", err)
		}
		res.Completion = sdk.CompletionResultDetails{Values: append(res.Completion.Values, values...), Total: total, HasMore: total > len(values)}
	case "document_id":
		kb := ""
		if req.Params.Context != nil {
			kb = req.Params.Context.Arguments["kb_name"]
		}
		values, more, err := m.svc.Library.DocumentIDsMatching(ctx, kb, value, MaxCompletions)
		switch ragd.KindOf(err) {
		case ragd.KindInvalid, ragd.KindForbidden: // nothing to offer in a namespace that cannot be used
		default:
			if err != nil {
				return nil, requestError(m.log, "completion/complete", err)
			}
			res.Completion = sdk.CompletionResultDetails{Values: append(res.Completion.Values, values...), HasMore: more}
			if !more {
				res.Completion.Total = len(values)
			}
		}
	}
	return res, nil
}
