package api

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/labstack/echo/v4"
)

// writeCounter counts the writes to the connections it accepted.
type writeCounter struct {
	net.Listener
	mu     sync.Mutex
	writes int
}

func (l *writeCounter) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countedConn{Conn: c, l: l}, nil
}

func (l *writeCounter) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.writes
}

type countedConn struct {
	net.Conn
	l *writeCounter
}

func (c *countedConn) Write(p []byte) (int, error) {
	c.l.mu.Lock()
	c.l.writes++
	c.l.mu.Unlock()
	return c.Conn.Write(p)
}

// A JSON answer larger than net/http's 4 KiB connection buffer leaves in
// one write on ragd's listener (before: two per answer), intact, over a
// kept-alive connection; one larger than maxHeld and a streamed answer
// still arrive whole, and an error answer too.
func TestJSONAnswerLeavesInOneWrite(t *testing.T) {
	e := echo.New()
	e.JSONSerializer = jsonSerializer{}
	// A net/http middleware, as ragd's auth is: the flush must reach
	// through the response it wraps.
	e.Use(echo.WrapMiddleware(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { next.ServeHTTP(w, r) })
	}))
	small := map[string]any{"text": strings.Repeat("passage text ", 600)} // ~8 KiB
	huge := map[string]any{"text": strings.Repeat("x", maxHeld+1000)}
	e.GET("/small", func(c echo.Context) error { return c.JSON(http.StatusOK, small) })
	e.GET("/huge", func(c echo.Context) error { return c.JSON(http.StatusOK, huge) })
	e.GET("/missing", func(c echo.Context) error {
		return c.JSON(http.StatusNotFound, map[string]string{"detail": "no such document"})
	})
	e.GET("/stream", func(c echo.Context) error {
		c.Response().WriteHeader(http.StatusOK)
		for range 3 {
			_, _ = c.Response().Write([]byte(strings.Repeat("s", 5000)))
			c.Response().Flush()
		}
		return nil
	})
	srv := httptest.NewUnstartedServer(e)
	srv.Config = NewHTTPServer(srv.Listener.Addr().String(), e)
	counter := &writeCounter{Listener: srv.Listener}
	srv.Listener = Listener(counter)
	srv.Start()
	defer srv.Close()

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	get := func(path string) []byte {
		t.Helper()
		resp, err := client.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return body
	}
	get("/small") // the connection opened
	before := counter.count()
	for range 5 {
		if body := get("/small"); !bytes.Equal(body, encoded(t, small)) {
			t.Fatalf("answer of %d bytes, want %d", len(body), len(encoded(t, small)))
		}
	}
	if got := counter.count() - before; got != 5 {
		t.Errorf("5 answers of %d bytes took %d writes, want 5", len(encoded(t, small)), got)
	}
	for path, want := range map[string][]byte{"/huge": encoded(t, huge), "/missing": encoded(t, map[string]string{"detail": "no such document"}),
		"/stream": []byte(strings.Repeat("s", 15000))} {
		if body := get(path); !bytes.Equal(body, want) {
			t.Errorf("%s: %d bytes, want %d", path, len(body), len(want))
		}
	}
}

func encoded(t *testing.T, v any) []byte {
	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
