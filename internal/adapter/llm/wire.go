package llm

import (
	"encoding/json"

	"ragd"
)

// wireRequest is the body POSTed to /chat/completions.
type wireRequest struct {
	Model         string             `json:"model"`
	Messages      []ragd.ChatMessage `json:"messages"`
	Stream        bool               `json:"stream"`
	StreamOptions *streamOptions     `json:"stream_options,omitempty"`
	Temperature   *float64           `json:"temperature,omitempty"`
	MaxTokens     int                `json:"max_tokens,omitempty"`
	Tools         []ragd.ChatTool    `json:"tools,omitempty"`
	ToolChoice    string             `json:"tool_choice,omitempty"`
}

// streamOptions asks for a final usage chunk in a stream.
type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type wireUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

func (u *wireUsage) usage() ragd.ChatUsage {
	if u == nil {
		return ragd.ChatUsage{}
	}
	return ragd.ChatUsage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens}
}

// wireResponse is a non-streamed completion.
type wireResponse struct {
	Choices []struct {
		Message      ragd.ChatMessage `json:"message"`
		FinishReason string           `json:"finish_reason"`
	} `json:"choices"`
	Usage *wireUsage      `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// wireChunk is one streamed chunk.
type wireChunk struct {
	Choices []struct {
		Delta struct {
			Content   string          `json:"content"`
			ToolCalls []wireToolDelta `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *wireUsage      `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// wireToolDelta is a fragment of a streamed tool call; fragments with the
// same Index belong to the same call and their arguments concatenate.
type wireToolDelta struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}
