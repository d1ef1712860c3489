package authn

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
)

// SessionCookie names the browser session cookie the web console's login
// sets. It holds an opaque id, never the key or token it was opened with.
const SessionCookie = "ragd_session"

// The web console's session endpoints. LoginPath and LogoutPath take POST
// without a token (the Origin rules still apply: see Middleware);
// SessionPath is public.
const (
	LoginPath   = "/ui/login"
	LogoutPath  = "/ui/logout"
	SessionPath = "/ui/session"
)

// DefaultSessionTTL is how long a browser session lasts when no TTL is given.
const DefaultSessionTTL = 12 * time.Hour

// SessionStore keeps browser sessions, each under a digest of its id, until
// their TTL passes. Errors are the store's being unreachable.
type SessionStore interface {
	Save(ctx context.Context, key string, value []byte, ttl time.Duration) error
	// Load reports false for a session that does not exist (or expired).
	Load(ctx context.Context, key string) ([]byte, bool, error)
	Delete(ctx context.Context, key string) error
}

// sessions are the browser sessions: where they are kept and for how long.
type sessions struct {
	store SessionStore
	ttl   time.Duration
}

// session is what a login stores: the principal it verified, until when.
type session struct {
	Name       string    `json:"name"`
	Namespaces []string  `json:"namespaces,omitempty"`
	Scopes     []string  `json:"scopes,omitempty"`
	Groups     []string  `json:"groups,omitempty"`
	UserID     string    `json:"user_id"`
	Static     bool      `json:"static,omitempty"`
	Expires    time.Time `json:"expires"`
}

// EnableSessions lets the web console log in: POST /ui/login trades a key
// or token for a session kept in store for ttl (0: DefaultSessionTTL), and
// the session cookie then authenticates requests like a bearer token.
// Call it before serving.
func (a *Authenticator) EnableSessions(store SessionStore, ttl time.Duration) {
	if ttl <= 0 {
		ttl = DefaultSessionTTL
	}
	a.sessions = &sessions{store: store, ttl: ttl}
}

// errNoSession marks a cookie whose session is gone: logged out, expired,
// or opened with a key no longer configured.
var errNoSession = errors.New("session expired or logged out: log in again")

// open stores a session for p and returns its cookie value.
func (s *sessions) open(ctx context.Context, p *Principal, ti *sdkauth.TokenInfo, static bool) (string, time.Time, error) {
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", time.Time{}, err
	}
	id := base64.RawURLEncoding.EncodeToString(raw[:])
	expires := time.Now().Add(s.ttl)
	if !ti.Expiration.IsZero() && ti.Expiration.Before(expires) {
		// A session outliving its JWT would extend the token's validity.
		expires = ti.Expiration
	}
	body, err := json.Marshal(session{Name: p.Name, Namespaces: p.Namespaces, Scopes: p.Scopes, Groups: p.Groups,
		UserID: ti.UserID, Static: static, Expires: expires})
	if err != nil {
		return "", time.Time{}, err
	}
	if err := s.store.Save(ctx, sessionKey(id), body, time.Until(expires)); err != nil {
		return "", time.Time{}, fmt.Errorf("%w: session store: %v", errUnavailable, err)
	}
	return id, expires, nil
}

// load returns the session of cookie value id; errNoSession when it is gone.
func (s *sessions) load(ctx context.Context, id string) (session, error) {
	body, ok, err := s.store.Load(ctx, sessionKey(id))
	if err != nil {
		return session{}, fmt.Errorf("%w: session store: %v", errUnavailable, err)
	}
	var ses session
	if !ok || json.Unmarshal(body, &ses) != nil || time.Now().After(ses.Expires) {
		return session{}, errNoSession
	}
	return ses, nil
}

// sessionKey is the store key of a session id: its digest, so the store's
// contents cannot be replayed as cookies.
func sessionKey(id string) string {
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:])
}

// sessionPrincipal authenticates r by its session cookie. found is false
// when r carries none; err is errNoSession, or errUnavailable-wrapped.
func (a *Authenticator) sessionPrincipal(r *http.Request) (p *Principal, ti *sdkauth.TokenInfo, found bool, err error) {
	c, cerr := r.Cookie(SessionCookie)
	if cerr != nil || c.Value == "" || a.sessions == nil {
		return nil, nil, false, nil
	}
	ses, err := a.sessions.load(r.Context(), c.Value)
	if err != nil {
		return nil, nil, true, err
	}
	p = &Principal{Name: ses.Name, Namespaces: slices.Clone(ses.Namespaces), Scopes: slices.Clone(ses.Scopes), Groups: slices.Clone(ses.Groups)}
	if ses.Static {
		// Re-read the key, so a session ends with its key and follows the
		// key's current namespaces.
		sv, ok := a.verifier.(*staticVerifier)
		k := sv.byName(ses.Name)
		if !ok || k == nil {
			return nil, nil, true, errNoSession
		}
		p.Namespaces = slices.Clone(k.namespaces)
		p.Groups = slices.Clone(k.groups)
		p.Roots = slices.Clone(k.roots)
		p.Key = true
	}
	return p, &sdkauth.TokenInfo{UserID: ses.UserID, Expiration: ses.Expires}, true, nil
}

// sessionCookie is the cookie carrying id, or (id "") the one clearing it.
// Secure when the request came over TLS or the public URL is https.
func (a *Authenticator) sessionCookie(r *http.Request, id string, expires time.Time) *http.Cookie {
	c := &http.Cookie{Name: SessionCookie, Value: id, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: r.TLS != nil || strings.HasPrefix(a.resourceURL, "https://")}
	if id == "" {
		c.MaxAge = -1
	} else {
		c.Expires = expires
		c.MaxAge = int(time.Until(expires).Seconds())
	}
	return c
}
