package rediscluster_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"ragd/internal/authn/oauth"
	"ragd/internal/platform/config"
	"ragd/internal/testkit/rediscluster"
	"ragd/internal/testkit/signin"
	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/standin"
	"ragd/internal/testkit/testenv"
)

// signinPorts are the sign-in test's cluster ports, clear of the other
// cluster tests' (21001, 21101, 21201).
const signinPorts = 21301

// TestSignInOnACluster: auth.mode oauth keeps its state on a Redis
// Cluster. A person signs in through the whole flow at the GitHub
// stand-in (the registration counted in a transaction, the pending
// sign-in, the consent request, the remembered consent, the single-use
// code, the token family and the signing keys, each updated under WATCH),
// the token reads, a refresh rotates it, the rotated refresh token's
// reuse revokes the family (deleted and published on the revocation
// channel), and the sign-in's keys are on the cluster's shards, none on
// the single test Redis.
func TestSignInOnACluster(t *testing.T) {
	testenv.WeaviateURL(t) // fails loudly before the cluster starts when the services are missing
	c := rediscluster.Start(t, signinPorts)
	gh := standin.NewGitHub(t, signin.Octocat())
	gh.SignInAs("octocat")
	l, base := stack.Listen(t)
	cfg := stack.Config(t)
	cfg.Redis.URL = ""
	cfg.Redis.Cluster = config.Cluster{Addrs: c.Addrs()[:3], WaitReplicas: 1, WaitTimeout: time.Second, FailoverWait: 15 * time.Second}
	cfg.Auth.Mode, cfg.Auth.ResourceURL, cfg.Auth.APIKey = "oauth", base, signin.OpsKey
	o := &cfg.Auth.OAuth
	o.Provider, o.ClientID, o.ClientSecret, o.GitHubURL, o.GitHubAPIURL = "github", gh.ClientID, gh.ClientSecret, gh.URL, gh.APIURL()
	o.AllowedOrgs = []string{"acme"}
	o.Grants = []config.AuthGrant{{Match: "acme/eng", Namespaces: []string{"docs"}, Groups: []string{"eng"}}}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	s := stack.StartOn(t, cfg, true, l)

	client, tok := signin.Tokens(t, base)
	if r := s.DoAs(t, tok.AccessToken, http.MethodGet, "/documents?kb_name=docs", nil); r.Status != http.StatusOK {
		t.Fatalf("documents with the token: %d %s", r.Status, r.Body)
	}
	status, next := refresh(t, base, client, tok.RefreshToken)
	if status != http.StatusOK || next.AccessToken == "" || next.RefreshToken == tok.RefreshToken {
		t.Fatalf("refresh: %d %+v, want a new pair", status, next)
	}
	if r := s.DoAs(t, next.AccessToken, http.MethodGet, "/documents?kb_name=docs", nil); r.Status != http.StatusOK {
		t.Fatalf("documents with the refreshed token: %d %s", r.Status, r.Body)
	}
	if status, again := refresh(t, base, client, tok.RefreshToken); status != http.StatusBadRequest || again.Error != "invalid_grant" {
		t.Fatalf("the rotated refresh token again: %d %+v, want 400 invalid_grant", status, again)
	}
	if r := s.DoAs(t, next.AccessToken, http.MethodGet, "/documents?kb_name=docs", nil); r.Status != http.StatusUnauthorized {
		t.Fatalf("the newest token after the reuse: %d, want 401 (family revoked)", r.Status)
	}

	prefix := cfg.Redis.KeyPrefix + ":oauth:"
	for _, kind := range []string{"client:", "registrations:", "consent:", "code:", "keys"} {
		if n := clusterKeys(t, c, prefix+kind+"*"); n == 0 {
			t.Errorf("no %s%s* key on the cluster", prefix, kind)
		}
	}
	if keys, _ := testenv.RedisClient(t, testenv.RedisURL(t)).Keys(context.Background(), prefix+"*").Result(); len(keys) > 0 {
		t.Fatalf("%d sign-in keys on the single test Redis, e.g. %s", len(keys), keys[0])
	}
}

// tokenAnswer is the part of a token endpoint answer the test reads.
type tokenAnswer struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	Error        string `json:"error"`
}

// refresh trades refreshToken of client at ragd at base.
func refresh(t *testing.T, base, client, refreshToken string) (int, tokenAnswer) {
	t.Helper()
	res, err := http.PostForm(base+oauth.TokenPath, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refreshToken}, "client_id": {client}})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	var a tokenAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		t.Fatalf("token endpoint: %d %s", res.StatusCode, body)
	}
	return res.StatusCode, a
}

// clusterKeys counts the keys matching pattern on the cluster's primaries.
func clusterKeys(t *testing.T, c *rediscluster.Cluster, pattern string) int {
	t.Helper()
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.Addrs()})
	defer cc.Close()
	var n atomic.Int64
	err := cc.ForEachMaster(context.Background(), func(ctx context.Context, node *redis.Client) error {
		keys, err := node.Keys(ctx, pattern).Result()
		n.Add(int64(len(keys)))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return int(n.Load())
}
