package ragd

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"os"
	"regexp"
)

// NetError is a network failure told without the URLs and addresses it
// involved: a resolver's ("lookup x on 127.0.0.53:53"), a peer's ("dial
// tcp 10.0.0.5:8080"), a dependency's URL (`Post "http://…"`). Its text
// reaches callers (a job's error, a refusal); the server's log has Err.
// It unwraps to Err, so errors.Is and errors.As still see the failure.
type NetError struct {
	// What failed, e.g. "embedding API" or "fetch https://example.com/".
	What string
	Err  error
}

// Error is What, then the failure in words that name no address.
func (e *NetError) Error() string { return e.What + ": " + NetCause(e.Err) }

// Unwrap returns the failure.
func (e *NetError) Unwrap() error { return e.Err }

// namesAddress matches text that names a URL or an IP address.
var namesAddress = regexp.MustCompile(`://|\d+\.\d+\.\d+\.\d+|\[[0-9a-fA-F:.%]+\]|[0-9a-fA-F]*:[0-9a-fA-F]*:|:\d+\b`)

// NetCause is what went wrong in err, a failure to reach or read from a
// server over the network, in words that name no URL, address or
// resolver: "no such host", "connection refused", "timed out" …
func NetCause(err error) string {
	var dns *net.DNSError
	var sys *os.SyscallError
	var cert *tls.CertificateVerificationError
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var netErr net.Error
	switch {
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case errors.As(err, &dns):
		return "cannot resolve the host: " + DNSCause(dns)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded),
		errors.As(err, &netErr) && netErr.Timeout():
		return "timed out"
	case errors.As(err, &cert), errors.As(err, &unknownCA), errors.As(err, &hostname):
		return "its TLS certificate was not accepted"
	case errors.As(err, &sys):
		return sys.Err.Error()
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "the connection closed before the answer ended"
	}
	inner := err
	for u := errors.Unwrap(inner); u != nil; u = errors.Unwrap(inner) {
		inner = u
	}
	if msg := inner.Error(); !namesAddress.MatchString(msg) {
		return msg
	}
	return "the connection failed"
}

// DNSCause is why a DNS lookup failed, without the resolver's address or
// the name looked up: "no such host", "the DNS lookup timed out" or "the
// DNS lookup failed".
func DNSCause(e *net.DNSError) string {
	switch {
	case e.IsNotFound:
		return "no such host"
	case e.IsTimeout:
		return "the DNS lookup timed out"
	}
	return "the DNS lookup failed"
}
