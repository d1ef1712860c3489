package llm

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"strings"

	"ragd"
)

// maxSSELine bounds one server-sent event line.
const maxSSELine = 1 << 20

// Stream runs a streamed completion, calling onDelta (if not nil) with each
// piece of text as it arrives, and returns the assembled message. If onDelta
// returns an error, the stream stops and Stream returns that error along
// with what was assembled so far. Config.IdleTimeout bounds the wait for
// each chunk rather than the whole answer.
func (c *Client) Stream(ctx context.Context, req ragd.ChatRequest, onDelta func(text string) error) (ragd.ChatResponse, error) {
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	idle := startIdle(c.cfg.IdleTimeout, cancel)
	defer idle.stop()

	// explain turns the cancellation our own timer caused, or the caller's,
	// into the error that says so.
	explain := func(err error) error {
		if idle.expired() {
			return fmt.Errorf("llm: no data from the model for %s: %w", c.cfg.IdleTimeout, context.DeadlineExceeded)
		}
		if perr := parent.Err(); perr != nil {
			return fmt.Errorf("llm: %w", perr)
		}
		return err
	}

	resp, err := c.api.Open(ctx, c.wireRequest(req, true), "text/event-stream")
	if err != nil {
		return ragd.ChatResponse{}, explain(err)
	}
	defer resp.Body.Close()

	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "application/json" {
		// the server ignored stream:true and answered in one piece
		body, err := c.api.Read(resp.Body)
		if err != nil {
			return ragd.ChatResponse{}, explain(err)
		}
		r, err := decodeCompletion(body)
		if err == nil && onDelta != nil && r.Message.Content != "" {
			err = onDelta(r.Message.Content)
		}
		return r, err
	}

	var acc assembler
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), maxSSELine)
	for sc.Scan() {
		idle.reset()
		data, ok := strings.CutPrefix(sc.Text(), "data:")
		if !ok {
			continue // blank separators, comments (":"), event:, id:, retry:
		}
		data = strings.TrimSpace(data)
		if data == "[DONE]" {
			return acc.response(), nil
		}
		text, err := acc.add(data)
		if err != nil {
			return acc.response(), err
		}
		if text != "" && onDelta != nil {
			if err := onDelta(text); err != nil {
				return acc.response(), err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return acc.response(), explain(fmt.Errorf("llm: reading stream: %w", err))
	}
	if acc.finish != "" {
		// a few servers close the stream without [DONE] after the last chunk
		return acc.response(), nil
	}
	return acc.response(), fmt.Errorf("llm: stream ended before [DONE]: %w", io.ErrUnexpectedEOF)
}

// assembler accumulates streamed chunks into one message.
type assembler struct {
	text   strings.Builder
	calls  []ragd.ToolCall
	byIdx  map[int]int // stream index → position in calls
	finish string
	usage  ragd.ChatUsage
}

// add applies one chunk's JSON and returns its text delta.
func (a *assembler) add(data string) (string, error) {
	var ch wireChunk
	if err := json.Unmarshal([]byte(data), &ch); err != nil {
		return "", fmt.Errorf("%w: stream chunk: %v", ErrMalformed, err)
	}
	if msg := errorMessage(ch.Error); msg != "" {
		return "", bodyError(msg)
	}
	if ch.Usage != nil {
		a.usage = ch.Usage.usage()
	}
	if len(ch.Choices) == 0 {
		return "", nil // e.g. the final usage-only chunk
	}
	choice := ch.Choices[0]
	if choice.FinishReason != nil && *choice.FinishReason != "" {
		a.finish = *choice.FinishReason
	}
	for _, d := range choice.Delta.ToolCalls {
		a.addToolDelta(d)
	}
	a.text.WriteString(choice.Delta.Content)
	return choice.Delta.Content, nil
}

// addToolDelta merges a tool-call fragment: the first fragment of a call
// carries its id and name, later ones more of its arguments.
func (a *assembler) addToolDelta(d wireToolDelta) {
	if a.byIdx == nil {
		a.byIdx = map[int]int{}
	}
	idx := len(a.calls) - 1
	if d.Index != nil {
		idx = *d.Index
	} else if d.ID != "" || idx < 0 {
		idx = len(a.calls) // servers that omit index start a call with its id
	}
	pos, ok := a.byIdx[idx]
	if !ok {
		pos = len(a.calls)
		a.byIdx[idx] = pos
		a.calls = append(a.calls, ragd.ToolCall{Type: "function"})
	}
	tc := &a.calls[pos]
	if d.ID != "" {
		tc.ID = d.ID
	}
	if d.Type != "" {
		tc.Type = d.Type
	}
	if tc.Function.Name == "" { // some servers repeat the name on every fragment
		tc.Function.Name = d.Function.Name
	}
	tc.Function.Arguments += d.Function.Arguments
}

func (a *assembler) response() ragd.ChatResponse {
	return ragd.ChatResponse{
		Message:      ragd.ChatMessage{Role: ragd.RoleAssistant, Content: a.text.String(), ToolCalls: a.calls},
		FinishReason: a.finish,
		Usage:        a.usage,
	}
}
