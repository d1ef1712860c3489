// Package sse writes server-sent events (the text/event-stream format) for
// the answer stream of rag_query and the web-search stream.
package sse

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
)

// Writer writes events to one response. The response starts (200 and the
// stream's headers) with the first event or comment, so an error found
// before any output can still get an ordinary status.
type Writer struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	started bool
}

// New returns a Writer on w.
func New(w http.ResponseWriter) *Writer {
	return &Writer{w: w, rc: http.NewResponseController(w)}
}

// Started reports whether the stream has begun: from then on an error can
// only be sent as an event.
func (s *Writer) Started() bool { return s.started }

// Event sends data as JSON under name ("" is the default "message" event).
// json.Marshal escapes newlines, so data always fits one data: line.
func (s *Writer) Event(name string, data any) error {
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
	return s.send(buf.Bytes())
}

// Comment sends a line clients ignore: it opens the stream and keeps idle
// proxies from closing it.
func (s *Writer) Comment(text string) error {
	return s.send([]byte(": " + text + "\n\n"))
}

func (s *Writer) send(b []byte) error {
	if !s.started {
		s.started = true
		h := s.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Accel-Buffering", "no") // nginx would otherwise hold events back
		s.w.WriteHeader(http.StatusOK)
	}
	if _, err := s.w.Write(b); err != nil {
		return err
	}
	// Each event is flushed so the client sees it at once; a writer that
	// cannot flush still delivers, only later.
	if err := s.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}
