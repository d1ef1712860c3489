package guard_test

import (
	"context"
	"testing"

	"ragd"
	"ragd/internal/ingest/guard"
)

// An IPv6 address that embeds an IPv4 one is refused when the IPv4 address
// would be, whatever the form: 6to4 (2002::/16, the address in bits
// 16-47), NAT64 (64:ff9b::/96), IPv4-mapped (::ffff:0:0/96) and
// IPv4-compatible (::/96). The 6to4 form of 127.0.0.1 was let through.
func TestEmbeddedIPv4Forms(t *testing.T) {
	ctx := context.Background()
	strict := &guard.Fetcher{}
	for form, c := range map[string]struct{ refused, public []string }{
		"6to4":       {[]string{"2002:7f00:1::", "2002:a9fe:a9fe::1", "2002:a00:1:1::", "2002:c0a8:101::", "2002::"}, []string{"2002:808:808::1"}},
		"NAT64":      {[]string{"64:ff9b::7f00:1", "64:ff9b::a9fe:a9fe", "64:ff9b::a00:1"}, []string{"64:ff9b::808:808"}},
		"mapped":     {[]string{"::ffff:127.0.0.1", "::ffff:169.254.169.254", "::ffff:10.0.0.1"}, []string{"::ffff:8.8.8.8"}},
		"compatible": {[]string{"::127.0.0.1", "::169.254.169.254", "::10.0.0.1", "::100.64.0.1"}, []string{"::8.8.8.8"}},
	} {
		for _, host := range c.refused {
			_, err := strict.CheckURL(ctx, "http://["+host+"]/")
			if ragd.KindOf(err) != ragd.KindForbidden {
				t.Errorf("%s [%s]: %v; want it refused", form, host, err)
			}
		}
		for _, host := range c.public {
			if _, err := strict.CheckURL(ctx, "http://["+host+"]/"); err != nil {
				t.Errorf("%s [%s] (a public IPv4 address): %v", form, host, err)
			}
		}
	}
}
