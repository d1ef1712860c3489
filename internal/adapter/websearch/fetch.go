package websearch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"
)

// maxAnswerBytes caps a provider's answer; real ones are tens of kilobytes.
const maxAnswerBytes = 4 << 20

// fetcher does the HTTP GET + JSON decode every provider needs, keeping the
// provider's secret out of every error it returns.
type fetcher struct {
	provider string
	client   *http.Client
	secret   string
}

func newFetcher(provider, secret string, o Options) fetcher {
	return fetcher{provider: provider, client: o.client(), secret: secret}
}

// getJSON decodes a 200 answer from u into out. Other statuses become a
// *StatusError carrying explain's reading of the body.
func (f fetcher) getJSON(ctx context.Context, u *url.URL, out any, explain func(status int, body []byte) string) error {
	err := f.get(ctx, u, out, explain)
	if err != nil && f.secret != "" {
		err = &scrubbedError{err: err, secret: f.secret}
	}
	return err
}

func (f fetcher) get(ctx context.Context, u *url.URL, out any, explain func(int, []byte) string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return fmt.Errorf("%s: building request: %w", f.provider, err)
	}
	req.Header.Set("Accept", "application/json")
	// SearXNG's bot detection refuses Go's default User-Agent and requests
	// without Accept-Language.
	req.Header.Set("User-Agent", "ragd-websearch/1.0")
	req.Header.Set("Accept-Language", "en-US,en;q=0.9")
	resp, err := f.client.Do(req)
	if err != nil {
		var ue *url.Error // its text holds the full URL, api_key included
		if errors.As(err, &ue) {
			ue.URL = redactURL(ue.URL)
		}
		return fmt.Errorf("%s: %w", f.provider, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes+1))
	if err != nil {
		return fmt.Errorf("%s: reading answer: %w", f.provider, err)
	}
	if len(body) > maxAnswerBytes {
		return fmt.Errorf("%s: answer larger than %d bytes", f.provider, maxAnswerBytes)
	}
	if resp.StatusCode != http.StatusOK {
		return &StatusError{Provider: f.provider, Status: resp.StatusCode, Message: scrub(explain(resp.StatusCode, body), f.secret)}
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("%s: malformed JSON answer: %w", f.provider, err)
	}
	return nil
}

// bodyMessage reads a provider's explanation out of an error body: the
// "error" or "message" of a JSON object, else the first line of plain text,
// else the status text (HTML pages say nothing useful in one line).
func bodyMessage(status int, body []byte) string {
	var j struct {
		Error   any    `json:"error"`
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &j) == nil {
		if s, ok := j.Error.(string); ok && s != "" {
			return s
		}
		if j.Message != "" {
			return j.Message
		}
	}
	text := strings.TrimSpace(string(body))
	if text != "" && !strings.HasPrefix(text, "<") && !strings.HasPrefix(text, "{") && utf8.ValidString(text) {
		line, _, _ := strings.Cut(text, "\n")
		return truncate(strings.TrimSpace(line), 200)
	}
	if t := http.StatusText(status); t != "" {
		return t
	}
	return "unexpected answer"
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
