package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// storedKey is one signing key as Redis keeps it.
type storedKey struct {
	KID     string    `json:"kid"`
	Created time.Time `json:"created"`
	PKCS8   []byte    `json:"pkcs8"`
}

// signingKey is a parsed storedKey.
type signingKey struct {
	kid     string
	created time.Time
	priv    *ecdsa.PrivateKey
}

// keysRefresh is how long a replica trusts its copy of the key list; an
// unknown kid rereads it sooner, at most once every keysRetry, so tokens
// with made-up kids cannot make every request read Redis twice.
const (
	keysRefresh = time.Minute
	keysRetry   = 5 * time.Second
)

// signingKeys are the ES256 keys every replica reads from Redis: the
// newest signs, every one kept verifies. A key signs for KeyRotation, then
// a new one is made; an old one is kept until no token it signed can be
// alive (KeyRotation + AccessTTL after it stopped signing).
type signingKeys struct {
	s    *Server
	mu   sync.Mutex
	list []signingKey
	read time.Time
	// forced is when an unknown kid last made the list be reread.
	forced time.Time
}

// current returns the key to sign with, rotating when it is due.
func (k *signingKeys) current(ctx context.Context) (signingKey, error) {
	list, err := k.load(ctx, false)
	if err != nil {
		return signingKey{}, err
	}
	now := k.s.cfg.Now()
	if len(list) > 0 && now.Sub(list[0].created) < k.s.cfg.KeyRotation {
		return list[0], nil
	}
	if list, err = k.rotate(ctx); err != nil {
		return signingKey{}, err
	}
	return list[0], nil
}

// byID returns the key kid names, rereading the list once if it is new.
func (k *signingKeys) byID(ctx context.Context, kid string) (*ecdsa.PublicKey, error) {
	for _, force := range []bool{false, true} {
		list, err := k.load(ctx, force)
		if err != nil {
			return nil, err
		}
		for _, key := range list {
			if key.kid == kid {
				return &key.priv.PublicKey, nil
			}
		}
	}
	return nil, fmt.Errorf("unknown signing key %q", kid)
}

// load returns the list, read from Redis when the copy is older than
// keysRefresh (or, forced, than keysRetry).
func (k *signingKeys) load(ctx context.Context, force bool) ([]signingKey, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.list != nil && ((!force && time.Since(k.read) < keysRefresh) || (force && time.Since(k.forced) < keysRetry)) {
		return k.list, nil
	}
	if force {
		k.forced = time.Now()
	}
	raw, ok, err := k.s.cfg.Store.Get(ctx, k.s.cfg.Keys.OAuthSigningKeys())
	if err != nil {
		return nil, err
	}
	var stored []storedKey
	if ok {
		if err := json.Unmarshal(raw, &stored); err != nil {
			return nil, fmt.Errorf("oauth: the signing keys in Redis are unreadable: %w", err)
		}
	}
	list, err := parseKeys(stored)
	if err != nil {
		return nil, err
	}
	k.list, k.read = list, time.Now()
	return list, nil
}

// rotate adds a new key in front unless another replica just did, drops
// keys no live token can name, and returns the new list.
func (k *signingKeys) rotate(ctx context.Context) ([]signingKey, error) {
	now := k.s.cfg.Now()
	keep := k.s.cfg.KeyRotation + k.s.cfg.AccessTTL + time.Minute
	raw, err := k.s.cfg.Store.Update(ctx, k.s.cfg.Keys.OAuthSigningKeys(), 0, func(old []byte, found bool) ([]byte, error) {
		var stored []storedKey
		if found {
			if err := json.Unmarshal(old, &stored); err != nil {
				return nil, err
			}
		}
		if len(stored) > 0 && now.Sub(stored[0].Created) < k.s.cfg.KeyRotation {
			return old, nil // another replica rotated first
		}
		priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, err
		}
		der, err := x509.MarshalPKCS8PrivateKey(priv)
		if err != nil {
			return nil, err
		}
		next := []storedKey{{KID: secret(12), Created: now, PKCS8: der}}
		for i, s := range stored {
			// stored[i] stopped signing when stored[i-1] was made.
			if i == 0 || now.Sub(stored[i-1].Created) < keep {
				next = append(next, s)
			}
		}
		return json.Marshal(next)
	})
	if err != nil {
		return nil, err
	}
	var stored []storedKey
	if err := json.Unmarshal(raw, &stored); err != nil {
		return nil, err
	}
	list, err := parseKeys(stored)
	if err != nil {
		return nil, err
	}
	k.mu.Lock()
	k.list, k.read = list, time.Now()
	k.mu.Unlock()
	return list, nil
}

// parseKeys parses stored keys.
func parseKeys(stored []storedKey) ([]signingKey, error) {
	list := make([]signingKey, 0, len(stored))
	for _, s := range stored {
		priv, err := x509.ParsePKCS8PrivateKey(s.PKCS8)
		ec, ok := priv.(*ecdsa.PrivateKey)
		if err != nil || !ok {
			return nil, fmt.Errorf("oauth: signing key %q is unreadable", s.KID)
		}
		list = append(list, signingKey{kid: s.KID, created: s.Created, priv: ec})
	}
	return list, nil
}

// jwks serves the public signing keys (RFC 7517).
func (s *Server) jwks(w http.ResponseWriter, r *http.Request) {
	if _, err := s.keys.current(r.Context()); err != nil {
		s.unavailable(w, r, err)
		return
	}
	list, err := s.keys.load(r.Context(), false)
	if err != nil {
		s.unavailable(w, r, err)
		return
	}
	set := jose.JSONWebKeySet{}
	for _, k := range list {
		set.Keys = append(set.Keys, jose.JSONWebKey{Key: &k.priv.PublicKey, KeyID: k.kid, Algorithm: "ES256", Use: "sig"})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(set)
}

// unavailable answers 503 for a failure of Redis (or another dependency),
// logging the cause.
func (s *Server) unavailable(w http.ResponseWriter, r *http.Request, err error) {
	s.log.ErrorContext(r.Context(), "oauth: a dependency failed", "path", r.URL.Path, "err", err)
	w.Header().Set("Retry-After", "5")
	oauthError(w, http.StatusServiceUnavailable, "temporarily_unavailable", "ragd's state is unavailable; try again")
}
