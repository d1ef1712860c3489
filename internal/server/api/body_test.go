package api_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"ragd/internal/testkit/testenv"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"ragd/internal/testkit/stack"
)

// sendPartial opens a connection to s and sends a POST to path that
// declares a body of declared bytes but sends only sent.
func sendPartial(t *testing.T, s *stack.Stack, path, contentType string, declared int, sent string) net.Conn {
	t.Helper()
	return sendPartialAs(t, s, http.MethodPost, path, contentType, declared, sent)
}

// sendPartialAs is sendPartial with another method.
func sendPartialAs(t *testing.T, s *stack.Stack, method, path, contentType string, declared int, sent string) net.Conn {
	t.Helper()
	u, _ := url.Parse(s.URL)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: %s\r\nContent-Type: %s\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s",
		method, path, u.Host, contentType, declared, sent)
	return conn
}

// readAnswer reads the response on conn, waiting at most wait.
func readAnswer(t *testing.T, conn net.Conn, wait time.Duration) (int, string, error) {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(wait))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), nil
}

// A body shorter than its Content-Length (the client closed its sending
// side) is the client's fault, a 400 saying so: it was a 500 on the JSON
// tools and POST /, a 422 on an import.
func TestShortBodyIs400(t *testing.T) {
	t.Parallel()
	var logs testenv.Buffer
	s := stack.StartWithLogger(t, stack.Config(t), false, slog.New(slog.NewTextHandler(&logs, nil)))
	for _, c := range []struct{ path, contentType, body string }{
		{"/tools/rag_search", "application/json", `{"query": "`},
		{"/tools/rag_index", "application/json", `{"text": "`},
		{"/tools/rag_query", "application/json", `{"query": "`},
		{"/", "application/json", `{"jsonrpc":`},
		{"/mcp", "application/json", `{"jsonrpc":`},
		{"/documents", "multipart/form-data; boundary=XX", "--XX\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n\r\nhello"},
		{"/kb/default/import", "application/gzip", "\x1f\x8b\x08\x00\x00\x00"},
	} {
		conn := sendPartial(t, s, c.path, c.contentType, len(c.body)+100, c.body)
		_ = conn.(*net.TCPConn).CloseWrite()
		status, body, err := readAnswer(t, conn, 10*time.Second)
		if err != nil || status != http.StatusBadRequest || !strings.Contains(body, "request body ended before its Content-Length") {
			t.Errorf("POST %s, body cut short: %d %s %v; want 400 naming the short body", c.path, status, body, err)
		}
	}
	if strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("short bodies were logged as errors:\n%s", logs.String())
	}
}

// A body that stops arriving is cut off at http.body_timeout with a 408
// and its connection closed; it held the connection for good before.
func TestStalledBodyIsCutOff(t *testing.T) {
	t.Parallel()
	cfg := stack.Config(t)
	cfg.HTTP.BodyTimeout = 300 * time.Millisecond
	s := stack.Start(t, cfg, false)
	start := time.Now()
	conn := sendPartial(t, s, "/tools/rag_search", "application/json", 100, `{"query": "`)
	status, body, err := readAnswer(t, conn, 5*time.Second)
	held := time.Since(start)
	if err != nil || status != http.StatusRequestTimeout || !strings.Contains(body, "http.body_timeout") {
		t.Fatalf("stalled body: %d %s %v after %s; want 408 naming http.body_timeout", status, body, err, held)
	}
	if held > 3*time.Second {
		t.Errorf("stalled body held the connection %s, body_timeout is 300ms", held)
	}
	wantClosed(t, conn)
}

// An upload or an archive import may take longer than http.body_timeout in
// all as long as it keeps moving; one that stalls for
// http.body_idle_timeout is cut off.
func TestSlowBodiesGetAnIdleTimeout(t *testing.T) {
	t.Parallel()
	cfg := stack.Config(t)
	cfg.HTTP.BodyTimeout = 300 * time.Millisecond
	cfg.HTTP.BodyIdleTimeout = time.Second
	s := stack.Start(t, cfg, false)

	form := "--XX\r\nContent-Disposition: form-data; name=\"file\"; filename=\"slow.txt\"\r\nContent-Type: text/plain\r\n\r\n" +
		strings.Repeat("Kelp grows slowly along cold coasts. ", 20) + "\r\n--XX--\r\n"
	conn := sendPartial(t, s, "/documents", "multipart/form-data; boundary=XX", len(form), "")
	start := time.Now()
	for piece := range pieces(form, 8) {
		time.Sleep(200 * time.Millisecond)
		if _, err := io.WriteString(conn, piece); err != nil {
			t.Fatal(err)
		}
	}
	status, body, err := readAnswer(t, conn, 5*time.Second)
	if err != nil || status != http.StatusAccepted {
		t.Fatalf("upload trickled over %s: %d %s %v; want 202", time.Since(start), status, body, err)
	}

	for _, c := range []struct{ path, contentType, body string }{
		{"/documents", "multipart/form-data; boundary=XX", form[:len(form)/2]},
		{"/kb/default/import", "application/gzip", "\x1f\x8b\x08\x00\x00\x00"},
	} {
		start := time.Now()
		conn := sendPartial(t, s, c.path, c.contentType, len(c.body)+100, c.body)
		status, body, err := readAnswer(t, conn, 5*time.Second)
		held := time.Since(start)
		if err != nil || status != http.StatusRequestTimeout || !strings.Contains(body, "http.body_idle_timeout") {
			t.Fatalf("POST %s stalled: %d %s %v after %s; want 408 naming http.body_idle_timeout", c.path, status, body, err, held)
		}
		if held < time.Second || held > 4*time.Second {
			t.Errorf("POST %s stalled: cut off after %s, body_idle_timeout is 1s", c.path, held)
		}
		wantClosed(t, conn)
	}
}

// pieces cuts s into n pieces.
func pieces(s string, n int) func(func(string) bool) {
	return func(yield func(string) bool) {
		size := (len(s) + n - 1) / n
		for len(s) > 0 {
			piece := s[:min(size, len(s))]
			s = s[len(piece):]
			if !yield(piece) {
				return
			}
		}
	}
}

// wantClosed fails unless the server has closed conn.
func wantClosed(t *testing.T, conn net.Conn) {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	n, err := conn.Read(make([]byte, 1))
	if err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("connection still open after the 408: read %d bytes, %v", n, err)
	}
}

// holdingEmbedder is an OpenAI-compatible embeddings endpoint that answers
// at once, except for a text holding "stall", which it holds until its
// caller gives up.
type holdingEmbedder struct{ held chan struct{} }

func (e *holdingEmbedder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Input []string `json:"input"`
	}
	_ = json.NewDecoder(r.Body).Decode(&req)
	type item struct {
		Embedding []float32 `json:"embedding"`
		Index     int       `json:"index"`
	}
	data := make([]item, len(req.Input))
	for i, text := range req.Input {
		if strings.Contains(text, "stall") {
			select {
			case e.held <- struct{}{}:
			default:
			}
			<-r.Context().Done()
			return
		}
		data[i] = item{Embedding: hashVector(text), Index: i}
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"data": data})
}

// A client that hangs up mid-search is no server error: not logged as
// one, and counted in the metrics as 499, not 5xx.
func TestClientGoneIsNotAServerError(t *testing.T) {
	t.Parallel()
	emb := &holdingEmbedder{held: make(chan struct{}, 1)}
	srv := httptest.NewServer(emb)
	t.Cleanup(srv.Close)
	cfg := stack.Config(t)
	cfg.Embed.Provider, cfg.Embed.BaseURL, cfg.Embed.Model, cfg.Embed.Dimension = "openai", srv.URL+"/v1", "stand-in", 8
	cfg.Cache.Enabled = false
	var logs testenv.Buffer
	s := stack.StartWithLogger(t, cfg, true, slog.New(slog.NewTextHandler(&logs, nil)))
	indexText(t, s, "default", "Kelp forests grow along cold, nutrient-rich coasts.")

	ctx, cancel := context.WithCancel(t.Context())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/tools/rag_search", strings.NewReader(`{"query": "stall kelp"}`))
	req.Header.Set("Content-Type", "application/json")
	go func() {
		<-emb.held // the search is under way
		cancel()
	}()
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("the search answered %d before the client gave up", resp.StatusCode)
	}
	statuses := searchStatuses(t, s)
	if len(statuses) != 1 || statuses[0] != "499" {
		t.Errorf("the abandoned search was counted with status %v, want [499]", statuses)
	}
	if strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("the abandoned search was logged as an error:\n%s", logs.String())
	}
}

var searchStatus = regexp.MustCompile(`ragd_http_request_duration_seconds_count\{method="POST",route="/tools/rag_search",status="(\d+)"\}`)

// searchStatuses waits for a rag_search request in /metrics and returns
// the statuses it is counted under.
func searchStatuses(t *testing.T, s *stack.Stack) []string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var statuses []string
		for _, m := range searchStatus.FindAllStringSubmatch(string(s.Do(t, http.MethodGet, "/metrics", nil).Body), -1) {
			statuses = append(statuses, m[1])
		}
		if len(statuses) > 0 || time.Now().After(deadline) {
			return statuses
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Every route that reads a body lists in the OpenAPI document the statuses
// a body answers whatever the route: 400 cut short, 408 not arriving in
// time. A stalled body gets a status its route lists: the document listed
// 408 for no route, and 400 not for the import.
func TestBodyStatusesAreDocumented(t *testing.T) {
	t.Parallel()
	cfg := stack.Config(t)
	cfg.HTTP.BodyTimeout, cfg.HTTP.BodyIdleTimeout = 300*time.Millisecond, 300*time.Millisecond
	s := stack.Start(t, cfg, false)
	var doc struct {
		Paths map[string]map[string]struct {
			RequestBody *struct {
				Content map[string]any `json:"content"`
			} `json:"requestBody"`
			Responses map[string]any `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(s.Do(t, http.MethodGet, "/openapi.json", nil).Body, &doc); err != nil {
		t.Fatal(err)
	}
	param := regexp.MustCompile(`\{(\w+)\}`)
	for path, ops := range doc.Paths {
		for method, op := range ops {
			if op.RequestBody == nil {
				continue
			}
			for _, code := range []string{"400", "408"} {
				if op.Responses[code] == nil {
					t.Errorf("%s %s reads a body but does not list %s", method, path, code)
				}
			}
			contentType := "application/json"
			for ct := range op.RequestBody.Content {
				contentType = ct
			}
			if contentType == "multipart/form-data" {
				contentType += "; boundary=XX"
			}
			target := param.ReplaceAllStringFunc(path, func(p string) string {
				if p == "{kb_name}" {
					return "default"
				}
				return "no-such-id"
			})
			conn := sendPartialAs(t, s, strings.ToUpper(method), target, contentType, 100, "")
			status, body, err := readAnswer(t, conn, 5*time.Second)
			if err != nil || op.Responses[strconv.Itoa(status)] == nil {
				t.Errorf("%s %s, body stalled: %d %s %v; not a status it lists", method, path, status, body, err)
			}
		}
	}
}
