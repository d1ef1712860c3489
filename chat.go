package ragd

import (
	"context"
	"encoding/json"
)

// ChatModel is a chat-completions model (OpenAI, Ollama, vLLM, llama.cpp
// server): it writes answers, calls tools for agentic answers and rewrites
// queries. Services receive it already guarded (breaker, timeout, retries).
type ChatModel interface {
	// Model names the model, for cache keys and logs.
	Model() string
	// Complete runs one completion.
	Complete(ctx context.Context, req ChatRequest) (ChatResponse, error)
	// Stream runs one completion, passing the answer's text to onDelta as
	// it is written; it is never retried once text went out.
	Stream(ctx context.Context, req ChatRequest, onDelta func(text string) error) (ChatResponse, error)
}

// The message roles of the chat-completions format.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// ChatMessage is one turn of a conversation, in the wire format.
type ChatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	// ToolCalls are the functions an assistant message asks to call.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID ties a tool message to the call it answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	Name       string `json:"name,omitempty"`
}

// ChatTool is a function the model may call.
type ChatTool struct {
	Type     string      `json:"type"` // always "function"
	Function FunctionDef `json:"function"`
}

// FunctionDef describes a callable function; Parameters is a JSON Schema
// object.
type FunctionDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// ToolCall is one function call the model asked for.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall names the function and carries its arguments as the JSON
// text the model produced (which may be invalid: callers must check).
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ChatRequest is one chat completion to run.
type ChatRequest struct {
	Messages []ChatMessage
	Tools    []ChatTool
	// ToolChoice is "", "auto" or "none" ("" leaves the server's default).
	ToolChoice string
}

// ChatResponse is the model's reply.
type ChatResponse struct {
	Message      ChatMessage
	FinishReason string // "stop", "length", "tool_calls", …
	Usage        ChatUsage
}

// ChatUsage counts tokens, when the server reports them.
type ChatUsage struct {
	PromptTokens     int
	CompletionTokens int
}
