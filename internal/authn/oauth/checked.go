package oauth

import (
	"context"
	"sync"
	"time"
)

// The bounds of what a replica remembers between requests.
const (
	// maxChecked bounds the verified tokens remembered; past it the
	// memory starts again.
	maxChecked = 10000
	// liveFor is how long a family Redis said exists is trusted without
	// asking again, while the revocation channel is listened to.
	liveFor = 30 * time.Second
	// listenRetry spaces out attempts to subscribe while Redis is down.
	listenRetry = 5 * time.Second
)

// checked is what a replica remembers so that checking a token costs
// neither a signature verification nor a Redis round trip on every
// request: tokens whose signature and claims it verified (by digest), and
// families Redis said exist. A family is trusted only while the
// revocation channel is listened to; a revocation, here or published by
// another replica, forgets it at once, and any gap in the subscription
// forgets every family.
type checked struct {
	mu        sync.Mutex
	tokens    map[string]accessClaims
	live      map[string]time.Time
	listening bool
}

func newChecked() *checked {
	return &checked{tokens: map[string]accessClaims{}, live: map[string]time.Time{}}
}

// token returns the verified claims of the token with digest d.
func (c *checked) token(d string) (accessClaims, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	claims, ok := c.tokens[d]
	return claims, ok
}

// remember keeps a verified token's claims.
func (c *checked) remember(d string, claims accessClaims) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.tokens) >= maxChecked {
		c.tokens = map[string]accessClaims{}
	}
	c.tokens[d] = claims
}

// isLive: family was seen in Redis within liveFor and the channel is
// listened to.
func (c *checked) isLive(family string, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	seen, ok := c.live[family]
	return c.listening && ok && now.Sub(seen) < liveFor
}

// seen notes that Redis holds family.
func (c *checked) seen(family string, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.listening {
		return
	}
	if len(c.live) >= maxChecked {
		c.live = map[string]time.Time{}
	}
	c.live[family] = now
}

// revoked forgets family.
func (c *checked) revoked(family string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.live, family)
}

// gap forgets every family: revocations may have been missed.
func (c *checked) gap() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.live = map[string]time.Time{}
}

// setListening records whether the revocation channel is listened to.
func (c *checked) setListening(on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.listening = on
	if !on {
		c.live = map[string]time.Time{}
	}
}

// listen subscribes to the revocation channel until ctx ends, retrying
// while Redis is down.
func (s *Server) listen(ctx context.Context) {
	for ctx.Err() == nil {
		err := s.cfg.Store.Subscribe(ctx, s.cfg.Keys.OAuthRevocations(), s.checked.gap, s.checked.revoked)
		if err == nil {
			s.checked.setListening(true)
			return
		}
		s.log.WarnContext(ctx, "oauth: cannot listen for revocations; every token check asks Redis", "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(listenRetry):
		}
	}
}

// Close stops listening for revocations.
func (s *Server) Close() {
	s.stop()
	s.checked.setListening(false)
}
