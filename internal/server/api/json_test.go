package api

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"ragd"
	"ragd/internal/retrieval/search"
)

// A JSON answer larger than the response's buffer goes out with its
// length, not chunked, with the bytes json.Encoder writes (a newline
// after the value, HTML escaped).
func TestJSONAnswersCarryTheirLength(t *testing.T) {
	e := echo.New()
	e.JSONSerializer = jsonSerializer{}
	answer := map[string]any{"text": strings.Repeat("a <b> & c ", 2000), "n": 7}
	e.GET("/", func(c echo.Context) error { return c.JSON(http.StatusOK, answer) })
	srv := httptest.NewServer(e)
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var want bytes.Buffer
	_ = json.NewEncoder(&want).Encode(answer)
	if resp.ContentLength != int64(want.Len()) || len(resp.TransferEncoding) != 0 || !bytes.Equal(body, want.Bytes()) {
		t.Fatalf("length %d, transfer encoding %v, %d bytes; want length %d, not chunked, json.Encoder's bytes",
			resp.ContentLength, resp.TransferEncoding, len(body), want.Len())
	}
}

// Answers are encoded by segmentio's encoder; their bytes must be the ones
// json.Encoder writes, for the values ragd answers with and the strings
// documents hold (HTML, line separators, control bytes, invalid UTF-8),
// and a value encoding/json refuses is refused.
func TestAnswerBytesMatchEncodingJSON(t *testing.T) {
	texts := []string{"plain", "a <b> & 'c' \"d\"", "line\u2028sep\u2029", "tab\tnl\ncr\r\x00\x1f\x7f",
		"bad \xff\xfe utf-8 \xc3", "emoji 🦫 and ünïcödé", "\\backslash/slash", strings.Repeat("long ", 500)}
	var results []search.Result
	for i, text := range texts {
		results = append(results, search.Result{Text: text, Score: float64(i)/3 + 1e-9, DocumentID: text, Source: "file:///" + text,
			Path: text, Level: i, Page: i % 2, OCR: i%3 == 0, Timestamp: "2026-12-05T09:30:00Z"})
	}
	when := time.Date(2026, 12, 5, 9, 30, 0, 123456789, time.FixedZone("x", 3600))
	values := []any{
		search.SearchResponse{Query: texts[1], Results: results, Count: len(results)},
		search.SearchResponse{Query: "none"},
		ragd.Job{ID: "j", Status: ragd.JobActive, Namespace: "kb", CreatedAt: when, Progress: ragd.Progress{Done: 1, Total: 3, Unit: "files"}},
		map[string]any{"z": 1, "a": texts[2], "m": -0.0, "big": 1e21, "small": 1e-7, "f": 0.1 + 0.2, "raw": json.RawMessage(`{ "b" : 1, "a":[1, 2] , "h":"<x>"}`), "when": when},
		map[string]any{"detail": texts[4], "n": nil, "list": []any{1, "two", 3.5, true, nil}},
		[]int(nil), map[string]string{}, "top-level <string>", 42,
	}
	for i, v := range values {
		var want bytes.Buffer
		if err := json.NewEncoder(&want).Encode(v); err != nil {
			t.Fatal(err)
		}
		got, err := encodeAnswer(nil, v, "")
		if err != nil || !bytes.Equal(got, want.Bytes()) {
			t.Errorf("value %d: err %v\ngot  %s\nwant %s", i, err, got, want.Bytes())
		}
		pretty, err := encodeAnswer(nil, v, "  ")
		var wantPretty bytes.Buffer
		enc := json.NewEncoder(&wantPretty)
		enc.SetIndent("", "  ")
		_ = enc.Encode(v)
		if err != nil || !bytes.Equal(pretty, wantPretty.Bytes()) {
			t.Errorf("value %d indented: err %v\ngot  %s\nwant %s", i, err, pretty, wantPretty.Bytes())
		}
	}
	if _, err := encodeAnswer(nil, map[string]float64{"nan": math.NaN()}, ""); err == nil {
		t.Error("NaN encoded; encoding/json refuses it")
	}
}
