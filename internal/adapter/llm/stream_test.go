package llm

import (
	"context"
	"errors"
	"net/http"
	"ragd"
	"ragd/internal/adapter/httpapi"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestStreamAssemblesDeltasUntilDone(t *testing.T) {
	srv, reqs := newServer(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		s := startSSE(w)
		s.data(chunk(map[string]any{"role": "assistant", "content": ""}, nil))
		for _, piece := range []string{"A data race", " is a write", " concurrent with", " another access [1]."} {
			s.data(chunk(map[string]any{"content": piece}, nil))
		}
		s.data(chunk(map[string]any{}, "stop"))
		// the usage chunk stream_options.include_usage asks for
		s.data(map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": []any{},
			"usage": map[string]any{"prompt_tokens": 40, "completion_tokens": 11, "total_tokens": 51}})
		s.done()
	})
	var deltas []string
	resp, err := newClient(t, srv).Stream(context.Background(), ragd.ChatRequest{Messages: []ragd.ChatMessage{{Role: ragd.RoleUser, Content: "What is a data race?"}}},
		func(text string) error { deltas = append(deltas, text); return nil })
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"A data race", " is a write", " concurrent with", " another access [1]."}
	if !reflect.DeepEqual(deltas, want) {
		t.Fatalf("deltas %q, want %q", deltas, want)
	}
	if resp.Message.Content != strings.Join(want, "") || resp.Message.Role != ragd.RoleAssistant || resp.FinishReason != "stop" {
		t.Fatalf("response %+v", resp)
	}
	if resp.Usage != (ragd.ChatUsage{PromptTokens: 40, CompletionTokens: 11}) {
		t.Fatalf("usage %+v", resp.Usage)
	}
	got := <-reqs
	if got.Body["stream"] != true || got.Accept != "text/event-stream" {
		t.Fatalf("stream request: accept %q body %v", got.Accept, got.Body)
	}
}

func TestStreamAssemblesToolCalls(t *testing.T) {
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		s := startSSE(w)
		s.data(chunk(map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
			"index": 0, "id": "call_1", "type": "function", "function": map[string]any{"name": "search_documents", "arguments": ""}}}}, nil))
		for _, part := range []string{`{"que`, `ry":"go `, `memory"}`} {
			s.data(chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "function": map[string]any{"arguments": part}}}}, nil))
		}
		s.data(chunk(map[string]any{"tool_calls": []any{map[string]any{
			"index": 1, "id": "call_2", "type": "function", "function": map[string]any{"name": "web_search", "arguments": `{"query":"x"}`}}}}, nil))
		s.data(chunk(map[string]any{}, "tool_calls"))
		s.done()
	})
	resp, err := newClient(t, srv).Stream(context.Background(), ragd.ChatRequest{Messages: []ragd.ChatMessage{{Role: ragd.RoleUser, Content: "q"}}, Tools: []ragd.ChatTool{searchTool}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []ragd.ToolCall{
		{ID: "call_1", Type: "function", Function: ragd.FunctionCall{Name: "search_documents", Arguments: `{"query":"go memory"}`}},
		{ID: "call_2", Type: "function", Function: ragd.FunctionCall{Name: "web_search", Arguments: `{"query":"x"}`}},
	}
	if !reflect.DeepEqual(resp.Message.ToolCalls, want) || resp.FinishReason != "tool_calls" {
		t.Fatalf("got %+v", resp)
	}
}

func TestStreamStopsWhenOnDeltaFails(t *testing.T) {
	released := make(chan struct{})
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		s := startSSE(w)
		s.data(chunk(map[string]any{"content": "one"}, nil))
		s.data(chunk(map[string]any{"content": "two"}, nil))
		select { // a server that would go on: the client must hang up
		case <-r.Context().Done():
		case <-released:
		}
	})
	defer close(released)
	errClientGone := errors.New("client went away")
	var deltas []string
	resp, err := newClient(t, srv).Stream(context.Background(), ragd.ChatRequest{Messages: []ragd.ChatMessage{{Role: ragd.RoleUser, Content: "q"}}},
		func(text string) error {
			deltas = append(deltas, text)
			if len(deltas) == 2 {
				return errClientGone
			}
			return nil
		})
	if err != errClientGone {
		t.Fatalf("err %v, want onDelta's error as is", err)
	}
	if resp.Message.Content != "onetwo" {
		t.Fatalf("partial content %q", resp.Message.Content)
	}
}

func TestStreamCancelledMidStream(t *testing.T) {
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		s := startSSE(w)
		s.data(chunk(map[string]any{"content": "Hello"}, nil))
		<-r.Context().Done() // the model keeps thinking until the client hangs up
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp, err := newClient(t, srv).Stream(ctx, ragd.ChatRequest{Messages: []ragd.ChatMessage{{Role: ragd.RoleUser, Content: "q"}}},
		func(text string) error { cancel(); return nil })
	if !errors.Is(err, context.Canceled) || IsTransient(err) {
		t.Fatalf("err %v (transient %v), want context.Canceled, not transient", err, IsTransient(err))
	}
	if resp.Message.Content != "Hello" {
		t.Fatalf("partial content %q", resp.Message.Content)
	}
}

func TestStreamIdleTimeoutIsTransient(t *testing.T) {
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		s := startSSE(w)
		s.data(chunk(map[string]any{"content": "Hel"}, nil))
		select { // stalls far past the client's timeout
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	c := newClient(t, srv, func(cfg *Config) { cfg.IdleTimeout = 150 * time.Millisecond })
	resp, err := c.Stream(context.Background(), ragd.ChatRequest{Messages: []ragd.ChatMessage{{Role: ragd.RoleUser, Content: "q"}}}, nil)
	if !errors.Is(err, context.DeadlineExceeded) || !IsTransient(err) {
		t.Fatalf("err %v, want a transient deadline error", err)
	}
	if resp.Message.Content != "Hel" {
		t.Fatalf("partial content %q", resp.Message.Content)
	}
}

func TestStreamTimeoutIsPerChunk(t *testing.T) {
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		s := startSSE(w)
		for i := 0; i < 6; i++ { // 6 × 50 ms: longer than the timeout in total, never idle that long
			time.Sleep(50 * time.Millisecond)
			s.data(chunk(map[string]any{"content": "x"}, nil))
		}
		s.done()
	})
	c := newClient(t, srv, func(cfg *Config) { cfg.IdleTimeout = 200 * time.Millisecond })
	resp, err := c.Stream(context.Background(), ragd.ChatRequest{Messages: []ragd.ChatMessage{{Role: ragd.RoleUser, Content: "q"}}}, nil)
	if err != nil || resp.Message.Content != "xxxxxx" {
		t.Fatalf("got %q, %v", resp.Message.Content, err)
	}
}

func TestStreamErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		write     func(s sse)
		malformed bool
		transient bool
	}{
		"malformed chunk": {func(s sse) { s.raw(`{"choices":[{"delta":{"content":`) }, true, false},
		"error event":     {func(s sse) { s.data(map[string]any{"error": map[string]any{"message": "overloaded"}}) }, false, true},
		"cut off":         {func(s sse) { s.data(chunk(map[string]any{"content": "Hel"}, nil)) }, false, true},
	} {
		srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) { tc.write(startSSE(w)) })
		_, err := newClient(t, srv).Stream(context.Background(), ragd.ChatRequest{Messages: []ragd.ChatMessage{{Role: ragd.RoleUser, Content: "q"}}}, nil)
		if err == nil || errors.Is(err, ErrMalformed) != tc.malformed || IsTransient(err) != tc.transient {
			t.Errorf("%s: err %v (malformed %v, transient %v)", name, err, errors.Is(err, ErrMalformed), IsTransient(err))
		}
	}
}

func TestStreamHTTPErrorAndJSONFallback(t *testing.T) {
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		writeJSON(w, 429, map[string]any{"error": map[string]any{"message": "Rate limit reached"}})
	})
	_, err := newClient(t, srv).Stream(context.Background(), ragd.ChatRequest{Messages: []ragd.ChatMessage{{Role: ragd.RoleUser, Content: "q"}}}, nil)
	var apiErr *httpapi.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 429 || !IsTransient(err) {
		t.Fatalf("want transient APIError 429, got %v", err)
	}

	// a server that ignores stream:true still yields one delta
	srv, _ = newServer(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		writeJSON(w, 200, completion(map[string]any{"role": "assistant", "content": "whole answer"}, "stop"))
	})
	var deltas []string
	resp, err := newClient(t, srv).Stream(context.Background(), ragd.ChatRequest{Messages: []ragd.ChatMessage{{Role: ragd.RoleUser, Content: "q"}}},
		func(s string) error { deltas = append(deltas, s); return nil })
	if err != nil || resp.Message.Content != "whole answer" || len(deltas) != 1 {
		t.Fatalf("fallback: %+v %q %v", resp, deltas, err)
	}
}
