package store

import (
	"cmp"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"time"

	"ragd/internal/platform/telemetry"
)

// tlsConfig is the one TLS configuration of every connection to a node,
// REST and gRPC: the peer's certificate is always verified, against the
// system's roots and the certificates of caFile (weaviate.ca_file, PEM)
// when given. A file that cannot be read or holds no certificate fails
// the start, naming it.
func tlsConfig(caFile string) (*tls.Config, error) {
	conf := &tls.Config{MinVersion: tls.VersionTLS12}
	if caFile == "" {
		return conf, nil
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("weaviate.ca_file: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("weaviate.ca_file %s holds no PEM certificate", caFile)
	}
	conf.RootCAs = pool
	return conf, nil
}

// restClient is the REST client of a node: the timeout the Weaviate
// client would use, TLS as tlsConfig sets it, the trace passed on.
func restClient(conf *tls.Config, timeout time.Duration) *http.Client {
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.TLSClientConfig = conf
	return &http.Client{Timeout: cmp.Or(timeout, clientTimeout), Transport: telemetry.TracingTransport(transport)}
}
