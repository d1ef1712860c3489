package mcpserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ragd"
	"ragd/internal/retrieval/answer"
)

// Sampling: with no chat model configured, core_query has the client's own
// model write the grounded answer when the client offers sampling. Two
// protocol eras ask differently:
//   - up to 2025-11-25, the server sends sampling/createMessage during the
//     call, which needs a session that carries requests to the client
//     (stdio, or HTTP with mcp.stateless: false); a client that declines or
//     fails leaves an extractive answer, with the reason in the fallback
//     note of the log;
//   - from 2026-07-28 on, the call ends with an input-required result
//     asking for the message, and the client calls again with the model's
//     reply (multi round-trip requests, SEP-2322): no session is needed, so
//     stateless HTTP samples too.
const (
	// samplingKey names the sampling request in inputRequests.
	samplingKey = "ragd_answer"
	// samplingStatePrefix opens the request state, which fingerprints
	// the prompt the reply must answer.
	samplingStatePrefix = "ragd-sampling-v1:"
	// samplingMaxTokens bounds the client model's answer.
	samplingMaxTokens = 1024
	// samplingTimeout bounds a sampling/createMessage round trip; the
	// client may ask its user first.
	samplingTimeout = 2 * time.Minute
	// newProtocol is the first revision with multi round-trip requests.
	newProtocol = "2026-07-28"
)

// sampler is the client's model as the answer service's per-call model
// (answer.CallModel).
type sampler struct {
	req *sdk.CallToolRequest
	// deferred asks through an input-required result; else the request
	// goes to the client at once.
	deferred bool
	// pending is what to ask the client, once a deferred Complete ran.
	pending *sdk.CreateMessageParams
}

// samplerFor is the caller's model when it declared sampling and can be
// asked, else nil.
func (m *Server) samplerFor(req *sdk.CallToolRequest) *sampler {
	if req == nil || req.Session == nil {
		return nil
	}
	caps := req.ClientCapabilities()
	if caps == nil || caps.Sampling == nil {
		return nil
	}
	if req.ProtocolVersion() >= newProtocol {
		return &sampler{req: req, deferred: true}
	}
	if m.cfg.Stateless && req.Extra != nil && req.Extra.Header != nil {
		return nil // stateless HTTP cannot carry a request to the client
	}
	return &sampler{req: req}
}

func (s *sampler) Model() string { return "mcp-sampling" }

func (s *sampler) Route() string { return answer.RouteSampling }

// Complete asks the client's model. Deferred, it returns the reply the
// client sent with this call if it answers this very prompt, else
// answer.ErrDeferred with the request kept for the input-required result.
func (s *sampler) Complete(ctx context.Context, req ragd.ChatRequest) (ragd.ChatResponse, error) {
	params := createMessageParams(req)
	if s.deferred {
		state := samplingState(params)
		if reply, ok := s.req.Params.InputResponses[samplingKey]; ok && s.req.Params.RequestState == state {
			r, _ := reply.(*sdk.CreateMessageWithToolsResult)
			if r == nil {
				return ragd.ChatResponse{}, errors.New("the client's reply is not a sampling result")
			}
			return chatResponse(r.Content, r.StopReason)
		}
		s.pending = params
		return ragd.ChatResponse{}, answer.ErrDeferred
	}
	ctx, cancel := context.WithTimeout(ctx, samplingTimeout)
	defer cancel()
	r, err := s.req.Session.CreateMessage(ctx, params)
	if err != nil {
		return ragd.ChatResponse{}, fmt.Errorf("sampling/createMessage: %w", err)
	}
	return chatResponse([]sdk.Content{r.Content}, r.StopReason)
}

// Stream is Complete, passing the whole answer once: sampling does not
// stream.
func (s *sampler) Stream(ctx context.Context, req ragd.ChatRequest, onDelta func(string) error) (ragd.ChatResponse, error) {
	resp, err := s.Complete(ctx, req)
	if err == nil && onDelta != nil {
		err = onDelta(resp.Message.Content)
	}
	return resp, err
}

// inputRequired is the result that asks the client for the pending
// message; the state lets the next call tell the reply answers it.
func (s *sampler) inputRequired() *sdk.CallToolResult {
	return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{samplingKey: s.pending}, RequestState: samplingState(s.pending)}
}

// createMessageParams is a chat request as a sampling request: the system
// messages become the system prompt.
func createMessageParams(req ragd.ChatRequest) *sdk.CreateMessageParams {
	p := &sdk.CreateMessageParams{MaxTokens: samplingMaxTokens, IncludeContext: "none"}
	var system []string
	for _, msg := range req.Messages {
		switch msg.Role {
		case ragd.RoleSystem:
			system = append(system, msg.Content)
		case ragd.RoleAssistant:
			p.Messages = append(p.Messages, &sdk.SamplingMessage{Role: "assistant", Content: &sdk.TextContent{Text: msg.Content}})
		default:
			p.Messages = append(p.Messages, &sdk.SamplingMessage{Role: "user", Content: &sdk.TextContent{Text: msg.Content}})
		}
	}
	p.SystemPrompt = strings.Join(system, "\n\n")
	return p
}

// samplingState fingerprints a sampling request. The state needs no
// secret: whoever forges it can only have their own reply taken for their
// own model's answer, which the client could send anyway.
func samplingState(p *sdk.CreateMessageParams) string {
	raw, _ := json.Marshal(p)
	sum := sha256.Sum256(raw)
	return samplingStatePrefix + hex.EncodeToString(sum[:16])
}

// chatResponse reads the model's text; a reply without any is a failure
// (the answer then is extractive).
func chatResponse(content []sdk.Content, stop string) (ragd.ChatResponse, error) {
	var b strings.Builder
	for _, c := range content {
		if t, ok := c.(*sdk.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	if strings.TrimSpace(b.String()) == "" {
		return ragd.ChatResponse{}, errors.New("the client's model returned no text")
	}
	return ragd.ChatResponse{Message: ragd.ChatMessage{Role: ragd.RoleAssistant, Content: b.String()}, FinishReason: stop}, nil
}
