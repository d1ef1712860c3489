package mcpserver

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"ragd/internal/platform/envelope"
	"ragd/internal/testkit/testenv"
)

// FuzzProtocolErrors posts arbitrary bodies and content types to the MCP
// endpoint's envelope check: no panic, bounded time; a refusal is a 400,
// 413 or 415 with a JSON-RPC error object of a protocol code; a body let
// through reaches the SDK unchanged and is a valid message or batch.
func FuzzProtocolErrors(f *testing.F) {
	for _, b := range testenv.JSONRPCSeeds(f) {
		f.Add(b, "application/json")
	}
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), "text/plain")
	f.Add([]byte(`[`), "application/json; charset=utf-8")
	f.Add([]byte(" "), "")
	const maxBody, maxBatch = 4 << 10, 4
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		testenv.Within(t, testenv.DefaultBound, func() {
			var got []byte
			next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got, _ = io.ReadAll(r.Body)
				w.WriteHeader(http.StatusAccepted)
			})
			req := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
			req.Header.Set("Content-Type", contentType)
			rec := httptest.NewRecorder()
			protocolErrors(next, maxBody, maxBatch, nil).ServeHTTP(rec, req)
			checkEnvelopeAnswer(t, body, got, rec, maxBody, maxBatch)
		})
	})
}

func checkEnvelopeAnswer(t *testing.T, body, got []byte, rec *httptest.ResponseRecorder, maxBody int64, maxBatch int) {
	switch rec.Code {
	case http.StatusAccepted:
		if !bytes.Equal(got, body) {
			t.Fatalf("the SDK got %q, not the body %q", got, body)
		}
		if _, code, msg := checkMessage(body, maxBatch); code != 0 && len(bytes.TrimSpace(body)) > 0 {
			t.Fatalf("a body failing the check was let through: %d %s", code, msg)
		}
		msgs, _, p := envelope.Split(body, maxBatch)
		for i := 0; p == nil && i < len(msgs); i++ {
			if _, p = envelope.Check(msgs[i]); p == nil && !json.Valid(msgs[i]) {
				t.Fatalf("message %q let through is not JSON", msgs[i])
			}
		}
	case http.StatusRequestEntityTooLarge:
		if int64(len(body)) <= maxBody {
			t.Fatalf("413 for a body of %d bytes (limit %d)", len(body), maxBody)
		}
	case http.StatusBadRequest, http.StatusUnsupportedMediaType:
		var e struct {
			JSONRPC string `json:"jsonrpc"`
			Error   struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.JSONRPC != "2.0" || e.Error.Message == "" {
			t.Fatalf("%d answer is not a JSON-RPC error: %q (%v)", rec.Code, rec.Body.String(), err)
		}
		if c := e.Error.Code; c != envelope.ParseError && c != envelope.InvalidRequest {
			t.Fatalf("error code %d", c)
		}
	default:
		t.Fatalf("status %d: %q", rec.Code, rec.Body.String())
	}
}
