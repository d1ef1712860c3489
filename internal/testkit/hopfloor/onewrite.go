package main

import (
	"context"
	"net"
	"net/http"
)

// oneWriteConn is a served connection that holds its writes while an
// answer is written, then sends them in one: net/http's 4 KiB buffer would
// send a search's answer in two.
type oneWriteConn struct {
	net.Conn
	held []byte // non-nil while holding
}

// Write holds p while holding, else writes it.
func (c *oneWriteConn) Write(p []byte) (int, error) {
	if c.held != nil {
		c.held = append(c.held, p...)
		return len(p), nil
	}
	return c.Conn.Write(p)
}

// oneWriteListener accepts oneWriteConns.
type oneWriteListener struct{ net.Listener }

func (l oneWriteListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &oneWriteConn{Conn: c}, nil
}

// connKey is the request context's key of its connection.
type connKey struct{}

// withConn gives each request its connection (http.Server.ConnContext).
func withConn(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// writeOnce answers with body, header and body in one write.
func writeOnce(w http.ResponseWriter, r *http.Request, body []byte) {
	c := r.Context().Value(connKey{}).(*oneWriteConn)
	c.held = make([]byte, 0, len(body)+512)
	_, _ = w.Write(body)
	_ = http.NewResponseController(w).Flush() // net/http's buffers into held
	held := c.held
	c.held = nil
	_, _ = c.Conn.Write(held)
}
