package embed

import (
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"
)

// An embedder that cannot be reached is an error naming neither its URL
// nor the addresses involved (the resolver's, the peer's): the text
// reaches callers (a switch's 422, a job's error).
func TestOpenAINetworkErrorsNameNoURL(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	closed := srv.URL
	srv.Close()
	address := regexp.MustCompile(`\d+\.\d+\.\d+\.\d+|\[[0-9a-fA-F:]+\]:\d+| on [^ ]+:\d+`)
	for _, base := range []string{closed + "/v1", "http://no-such-host.invalid/v1"} {
		o, err := NewOpenAI(OpenAIConfig{BaseURL: base, Model: "m", Dimension: 4})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		_, err = o.Embed(ctx, []string{"x"})
		cancel()
		if err == nil || !IsTransient(err) || strings.Contains(err.Error(), strings.TrimSuffix(base, "/v1")) ||
			strings.Contains(err.Error(), "no-such-host") || address.MatchString(err.Error()) {
			t.Errorf("%s: %v (transient %v); want a transient error naming no URL or address", base, err, IsTransient(err))
		}
	}
}
