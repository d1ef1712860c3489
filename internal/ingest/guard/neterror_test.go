package guard_test

import (
	"context"
	"regexp"
	"testing"
	"time"

	"ragd/internal/ingest/guard"
)

// anAddress is an IP address with or without a port: a resolver's, a
// dialed peer's.
var anAddress = regexp.MustCompile(`\d+\.\d+\.\d+\.\d+|\[[0-9a-fA-F:]+\]:\d+| on [^ ]+:\d+`)

// A URL whose host does not resolve is refused naming the host and why,
// not the address of the resolver asked ("lookup x on 127.0.0.53:53: no
// such host"), whether CheckURL or the fetch's own dial finds it.
func TestUnresolvableHostNamesNoResolver(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	const raw = "http://no-such-host.invalid/page"
	_, err := (&guard.Fetcher{}).CheckURL(ctx, raw)
	if err == nil || anAddress.MatchString(err.Error()) {
		t.Errorf("CheckURL(%s): %v; want an error naming no address", raw, err)
	}
	_, _, _, err = (&guard.Fetcher{AllowPrivate: true, Timeout: 10 * time.Second}).Fetch(ctx, raw)
	if err == nil || anAddress.MatchString(err.Error()) {
		t.Errorf("Fetch(%s): %v; want an error naming no address", raw, err)
	}
}
