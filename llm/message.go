package llm

import "encoding/json"

// The message roles of the chat-completions format.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one turn of a conversation, in the wire format.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	// ToolCalls are the functions an assistant message asks to call.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID ties a tool message to the call it answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	Name       string `json:"name,omitempty"`
}

// Tool is a function the model may call.
type Tool struct {
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

// Request is one chat completion to run.
type Request struct {
	Messages []Message
	Tools    []Tool
	// ToolChoice is "", "auto" or "none" ("" leaves the server's default).
	ToolChoice string
}

// Response is the model's reply.
type Response struct {
	Message      Message
	FinishReason string // "stop", "length", "tool_calls", …
	Usage        Usage
}

// Usage counts tokens, when the server reports them.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
}
