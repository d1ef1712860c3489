package api

import (
	"context"
	"io"
	"net"
	"net/http"
	"sync"

	"github.com/labstack/echo/v4"
)

// heldConn is a served connection that can hold its writes while an
// answer is written. net/http's connection buffer is 4 KiB, so an answer
// larger than that (a search's five chunks are 5–8 KiB) leaves in two
// writes: the header with the first 4 KiB, then the rest. Held, it leaves
// in one: one system call, and one wake-up of a client that would
// otherwise read the answer in two parts.
//
// Only the goroutine serving the connection writes to it (net/http's
// background reader only reads), so hold, Write and release need no lock.
type heldConn struct {
	net.Conn
	held *[]byte // non-nil while holding
}

// maxHeld bounds an answer sent in one write; a larger one is written as
// net/http writes it, not copied once more.
const maxHeld = 256 << 10

// heldBuffers are reused across answers.
var heldBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// Write holds p while an answer is held and fits, else writes it (after
// what was held, so that the order on the wire stays the order written).
func (c *heldConn) Write(p []byte) (int, error) {
	if c.held != nil {
		if len(*c.held)+len(p) <= maxHeld {
			*c.held = append(*c.held, p...)
			return len(p), nil
		}
		if err := c.release(); err != nil {
			return 0, err
		}
	}
	return c.Conn.Write(p)
}

// ReadFrom keeps net/http's sendfile path for files served (the console's
// assets, exports) when nothing is held.
func (c *heldConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok && c.held == nil {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{c}, r)
}

// CloseWrite keeps net/http's lingering close (an error answer read by
// the client before the connection resets).
func (c *heldConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// hold starts holding writes.
func (c *heldConn) hold() {
	if c.held == nil {
		c.held = heldBuffers.Get().(*[]byte)
	}
}

// release writes what was held, in one write, and stops holding.
func (c *heldConn) release() error {
	b := c.held
	if b == nil {
		return nil
	}
	c.held = nil
	var err error
	if len(*b) > 0 {
		_, err = c.Conn.Write(*b)
	}
	*b = (*b)[:0]
	heldBuffers.Put(b)
	return err
}

// heldListener accepts heldConns.
type heldListener struct{ net.Listener }

func (l heldListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &heldConn{Conn: c}, nil
}

// Listener is ln serving connections whose JSON answers leave in one write
// (see heldConn); the server must be NewHTTPServer's.
func Listener(ln net.Listener) net.Listener { return heldListener{ln} }

// ListenAndServe is srv.ListenAndServe on a Listener.
func ListenAndServe(srv *http.Server) error {
	addr := srv.Addr
	if addr == "" {
		addr = ":http"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return srv.Serve(Listener(ln))
}

// heldConnKey is the request context's key of its heldConn.
type heldConnKey struct{}

// connContext gives each request its connection, if a heldConn.
func connContext(ctx context.Context, c net.Conn) context.Context {
	if hc, ok := c.(*heldConn); ok {
		return context.WithValue(ctx, heldConnKey{}, hc)
	}
	return ctx
}

// writeHeld writes an answer of known length in one write to the
// connection when the request's connection is a heldConn: held while
// net/http writes header and body, flushed, released.
func writeHeld(req *http.Request, res *echo.Response, answer []byte) error {
	hc, _ := req.Context().Value(heldConnKey{}).(*heldConn)
	if hc == nil {
		_, err := res.Write(answer)
		return err
	}
	hc.hold()
	_, err := res.Write(answer)
	if err == nil {
		// Pushes net/http's buffers into the held connection. Without a
		// flusher in the chain (echo's Flush would panic) the rest follows
		// in net/http's own write, after what is released here.
		_ = http.NewResponseController(res.Writer).Flush()
	}
	if rerr := hc.release(); err == nil {
		err = rerr
	}
	return err
}
