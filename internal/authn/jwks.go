package authn

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// jwksCache holds the authorization server's public keys, fetched on first
// use, refreshed after ttl, and refetched early when a token names a key id
// it does not know (key rotation).
type jwksCache struct {
	url    string
	client *http.Client
	log    *slog.Logger
	// ttl is how long a fetched set is trusted before the next refresh.
	ttl time.Duration
	// minInterval spaces out refetches caused by unknown key ids or failed
	// fetches, so tokens with made-up kids cannot make us hammer the server.
	minInterval time.Duration

	fetchMu sync.Mutex // serializes fetches; held across the HTTP call
	mu      sync.Mutex // guards the fields below
	keys    []jose.JSONWebKey
	fetched time.Time // last successful fetch
	tried   time.Time // last fetch attempt
}

func newJWKSCache(url string, log *slog.Logger) *jwksCache {
	return &jwksCache{
		url:         url,
		client:      &http.Client{Timeout: 10 * time.Second},
		log:         log,
		ttl:         15 * time.Minute,
		minInterval: 10 * time.Second,
	}
}

// maxJWKSBytes bounds the document we read; real sets are a few KiB.
const maxJWKSBytes = 1 << 20

// key returns the public key for a token's kid and alg. Errors wrap
// errUnavailable when no key set could be fetched at all.
func (c *jwksCache) key(ctx context.Context, kid, alg string) (any, error) {
	c.mu.Lock()
	keys, fetched, tried := c.keys, c.fetched, c.tried
	c.mu.Unlock()

	if !fetched.IsZero() && time.Since(fetched) < c.ttl {
		if k, err := pick(keys, kid, alg); err == nil {
			return k, nil
		}
	}
	// Stale, missing, or no such kid (rotation): fetch, unless a fetch was
	// tried within minInterval.
	if tried.IsZero() || time.Since(tried) >= c.minInterval {
		keys = c.refresh(ctx, tried)
	}
	if keys == nil {
		return nil, errUnavailable
	}
	return pick(keys, kid, alg)
}

// refresh fetches the set unless another caller attempted a fetch after
// seenTried, and returns the newest keys (possibly stale ones when the
// fetch fails: an outage of the authorization server should not lock out
// holders of still-valid tokens).
func (c *jwksCache) refresh(ctx context.Context, seenTried time.Time) []jose.JSONWebKey {
	c.fetchMu.Lock()
	defer c.fetchMu.Unlock()
	c.mu.Lock()
	if c.tried.After(seenTried) {
		keys := c.keys
		c.mu.Unlock()
		return keys
	}
	c.tried = time.Now()
	c.mu.Unlock()

	// Detached from the request: one client hanging up must not fail the
	// fetch that concurrent requests are waiting on.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.client.Timeout)
	defer cancel()
	keys, err := c.fetch(ctx)

	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.log.Warn("auth: fetching JWKS failed", "url", c.url, "err", err, "cached_keys", len(c.keys))
		return c.keys
	}
	c.keys, c.fetched = keys, time.Now()
	c.log.Debug("auth: fetched JWKS", "url", c.url, "keys", len(keys))
	return keys
}

// fetch downloads and parses the key set, skipping keys it cannot use
// rather than rejecting the whole set.
func (c *jwksCache) fetch(ctx context.Context) ([]jose.JSONWebKey, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %s", resp.Status)
	}
	var doc struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxJWKSBytes)).Decode(&doc); err != nil {
		return nil, fmt.Errorf("decoding: %w", err)
	}
	var keys []jose.JSONWebKey
	for i, raw := range doc.Keys {
		var k jose.JSONWebKey
		if err := k.UnmarshalJSON(raw); err != nil {
			c.log.Debug("auth: skipping unreadable JWKS key", "index", i, "err", err)
			continue
		}
		if k.Use == "enc" || !k.Valid() {
			continue
		}
		if !k.IsPublic() {
			// A misconfigured set may publish private keys; use only their public half.
			k = k.Public()
		}
		if !k.Valid() {
			continue // symmetric keys have no public half
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("no usable signing keys in %d entries", len(doc.Keys))
	}
	return keys, nil
}
