package s3sync

import (
	"testing"

	"ragd"
)

// TestWebURL: an object's citation is its path-style URL, each segment
// escaped, for an https endpoint, and none for an http one; the source's
// address in its URIs has the endpoint lower-cased.
func TestWebURL(t *testing.T) {
	at, err := locate(ragd.Source{URL: "s3://team-docs/hand book/", Endpoint: "HTTPS://S3.eu-west-1.amazonaws.com/"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := at.webURL("hand book/a#b?.md"), "https://s3.eu-west-1.amazonaws.com/team-docs/hand%20book/a%23b%3F.md"; got != want {
		t.Errorf("https: %q, want %q", got, want)
	}
	if got := at.where(); got != "https://s3.eu-west-1.amazonaws.com/team-docs/hand book/" {
		t.Errorf("where: %q", got)
	}
	at, _ = locate(ragd.Source{URL: "s3://b/p/", Endpoint: "http://minio.internal:9000"})
	if got := at.webURL("p/a.md"); got != "" {
		t.Errorf("http endpoint: %q, want no citation", got)
	}
}
