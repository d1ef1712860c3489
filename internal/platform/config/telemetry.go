package config

import (
	"fmt"
	"net/url"
	"strings"
)

// validate refuses telemetry settings that would not export, naming
// each.
func (t Telemetry) validate() []error {
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	check(t.Protocol == "http/protobuf" || t.Protocol == "grpc", "telemetry.protocol must be http/protobuf or grpc, not %q", t.Protocol)
	check(t.SampleRatio >= 0 && t.SampleRatio <= 1, "telemetry.sample_ratio must be between 0 and 1, not %v", t.SampleRatio)
	check(strings.TrimSpace(t.ServiceName) != "", "telemetry.service_name is empty")
	if t.OTLPEndpoint != "" {
		u, err := url.Parse(t.OTLPEndpoint)
		check(err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.RawQuery == "" && u.Fragment == "",
			"telemetry.otlp_endpoint must be the collector's http:// or https:// URL (e.g. http://127.0.0.1:4318), not %q", t.OTLPEndpoint)
	}
	for name := range t.Headers {
		check(validHeaderName(name), "telemetry.headers: %q is not an HTTP header name", name)
	}
	return errs
}

// validHeaderName: a header name is a non-empty token (RFC 9110).
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r > 0x7e || r <= ' ' || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) {
			return false
		}
	}
	return true
}
