package api_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"ragd/internal/testkit/stack"
)

// A JSON string holding an escaped UTF-16 surrogate without its other half
// ("\ud800") is refused (422): Go's decoder stored it as U+FFFD, silently.
// A pair, and a backslash before "ud800", are text like any other.
func TestLoneSurrogateIsRefused(t *testing.T) {
	t.Parallel()
	s := stack.Start(t, stack.Config(t), false)
	post := func(body string) (int, string) {
		resp, err := http.Post(s.URL+"/tools/rag_index", "application/json", bytes.NewReader([]byte(body)))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out bytes.Buffer
		_, _ = out.ReadFrom(resp.Body)
		return resp.StatusCode, out.String()
	}
	for _, body := range []string{
		`{"text": "a note", "access": ["\ud800"]}`,
		`{"text": "a note", "access": ["team-\uDFFF"]}`,
		`{"text": "a note", "access": ["\ud800\u0041"]}`,
		`{"text": "a note", "access": ["\\\ud83d"]}`,
		`{"text": "a note \udc00\ud800"}`,
	} {
		if status, out := post(body); status != http.StatusUnprocessableEntity || !strings.Contains(out, "surrogate") {
			t.Errorf("%s: %d %s; want 422 naming the lone surrogate", body, status, out)
		}
	}
	for _, body := range []string{
		`{"text": "a note with a smile \ud83d\ude00"}`,
		`{"text": "a note with a backslash: \\ud800"}`,
	} {
		if status, out := post(body); status != http.StatusAccepted {
			t.Errorf("%s: %d %s; want 202", body, status, out)
		}
	}
}
