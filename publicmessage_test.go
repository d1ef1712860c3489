package ragd

import (
	"errors"
	"fmt"
	"testing"
)

func TestPublicMessage(t *testing.T) {
	cause := errors.New("dial tcp 10.9.8.7:6379: secret-token")
	for _, c := range []struct {
		err  error
		want string
	}{
		{cause, ""},
		{fmt.Errorf("embed: %w", cause), ""},
		{&Error{Kind: KindInternal, Message: "boom", Err: cause}, ""},
		{fmt.Errorf("search: %w", Unavailable("embedder", cause)), "embedder is unavailable"},
		{Invalid("query", "value_error", "query is empty"), "query is empty"},
		{&Error{Kind: KindNotFound, Message: "no job j1"}, "no job j1"},
	} {
		if got := PublicMessage(c.err); got != c.want {
			t.Errorf("PublicMessage(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}
