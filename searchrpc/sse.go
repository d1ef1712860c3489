package searchrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
)

// sseWriter writes Server-Sent Events, flushing each so the client sees it
// at once rather than when a buffer fills.
type sseWriter struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

func newSSEWriter(w http.ResponseWriter) *sseWriter {
	return &sseWriter{w: w, rc: http.NewResponseController(w)}
}

// event sends data as JSON under name ("" is the default "message" event).
// json.Marshal escapes newlines, so data always fits one data: line.
func (e *sseWriter) event(name string, data any) error {
	b, err := json.Marshal(data)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if name != "" {
		buf.WriteString("event: " + name + "\n")
	}
	buf.WriteString("data: ")
	buf.Write(b)
	buf.WriteString("\n\n")
	return e.send(buf.Bytes())
}

// comment sends a line clients ignore: it opens the stream and keeps idle
// proxies from closing it.
func (e *sseWriter) comment(text string) error {
	return e.send([]byte(": " + text + "\n\n"))
}

func (e *sseWriter) send(b []byte) error {
	if _, err := e.w.Write(b); err != nil {
		return err
	}
	// A writer that cannot flush still delivers, only later.
	if err := e.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}
