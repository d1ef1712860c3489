package ragd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"syscall"
	"testing"
)

func TestNetCauseNamesNoAddress(t *testing.T) {
	dial := func(err error) error {
		return &url.Error{Op: "Post", URL: "http://10.0.0.5:8080/v1/embeddings", Err: &net.OpError{Op: "dial", Net: "tcp",
			Addr: &net.TCPAddr{IP: net.IPv4(10, 0, 0, 5), Port: 8080}, Err: err}}
	}
	for _, c := range []struct {
		err  error
		want string
	}{
		{dial(&net.DNSError{Err: "no such host", Name: "embedder.internal", Server: "127.0.0.53:53", IsNotFound: true}), "cannot resolve the host: no such host"},
		{dial(&net.DNSError{Err: "i/o timeout", Name: "x", Server: "127.0.0.53:53", IsTimeout: true}), "cannot resolve the host: the DNS lookup timed out"},
		{dial(&net.DNSError{Err: "server misbehaving", Name: "x", Server: "[fd00::53]:53"}), "cannot resolve the host: the DNS lookup failed"},
		{dial(os.NewSyscallError("connect", syscall.ECONNREFUSED)), "connection refused"},
		{dial(os.ErrDeadlineExceeded), "timed out"},
		{fmt.Errorf("read: %w", context.DeadlineExceeded), "timed out"},
		{dial(context.Canceled), "cancelled"},
		{&url.Error{Op: "Get", URL: "https://10.0.0.5/", Err: errors.New("tls: first record does not look like a TLS handshake")}, "tls: first record does not look like a TLS handshake"},
		{&url.Error{Op: "Get", URL: "https://10.0.0.5/", Err: errors.New("read from 10.0.0.5:443 failed")}, "the connection failed"},
	} {
		if got := NetCause(c.err); got != c.want {
			t.Errorf("NetCause(%v) = %q, want %q", c.err, got, c.want)
		}
		ne := &NetError{What: "embedding API", Err: c.err}
		if !errors.Is(ne, c.err) || ne.Error() != "embedding API: "+c.want {
			t.Errorf("NetError of %v: %q", c.err, ne.Error())
		}
	}
}
