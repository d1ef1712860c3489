package gitsync

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing/transport/client"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"ragd/internal/ingest/guard"
)

// go-git picks its transport per scheme from a process-wide table, with
// no per-fetch client. So that every connection of an http(s) fetch —
// redirects included — passes the ingest guard's dial-time address check
// (ingest.allow_private_urls), as URL ingest's do, ragd installs one
// http(s) transport whose dialer takes the check from the fetch's
// context. git:// and ssh dial by themselves: for them the check is the
// host's resolution before the fetch (CheckAddress).

// dialKey is the context key of the Fetcher a fetch's connections go through.
type dialKey struct{}

var installHTTP sync.Once

// guardHTTP installs the transport once per process.
func guardHTTP() {
	installHTTP.Do(func() {
		c := &http.Client{Transport: &http.Transport{
			Proxy:               nil, // a proxy would dial for us, past the check
			DialContext:         dialChecked,
			ForceAttemptHTTP2:   true,
			TLSHandshakeTimeout: 10 * time.Second,
			MaxIdleConns:        4,
			IdleConnTimeout:     30 * time.Second,
		}}
		client.InstallProtocol("http", githttp.NewClient(c))
		client.InstallProtocol("https", githttp.NewClient(c))
	})
}

// withDialCheck is ctx whose http(s) fetches dial through f.
func withDialCheck(ctx context.Context, f *guard.Fetcher) context.Context {
	if f == nil {
		return ctx
	}
	return context.WithValue(ctx, dialKey{}, f)
}

// dialChecked dials through the Fetcher ctx carries, plainly without one.
func dialChecked(ctx context.Context, network, addr string) (net.Conn, error) {
	if f, ok := ctx.Value(dialKey{}).(*guard.Fetcher); ok {
		return f.Dial(ctx, network, addr)
	}
	return (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext(ctx, network, addr)
}
