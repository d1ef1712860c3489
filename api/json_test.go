package api

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
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
