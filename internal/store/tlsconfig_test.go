package store

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"

	"ragd"
	"ragd/internal/testkit/testenv"
)

// selfSigned is a certificate for 127.0.0.1 that is its own authority,
// and its PEM.
func selfSigned(t *testing.T) (tls.Certificate, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "ragd test node"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// weaviate.ca_file makes a node whose certificate the system does not
// trust reachable, over REST and gRPC alike; without it both refuse the
// node with a certificate error; a bundle that cannot be used fails.
func TestCAFileTrustsTheNode(t *testing.T) {
	cert, pemBytes := selfSigned(t)
	caFile := testenv.WriteFile(t, filepath.Join(t.TempDir(), "ca.pem"), string(pemBytes))
	rest := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("{}")) }))
	rest.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	rest.StartTLS()
	t.Cleanup(rest.Close)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(grpc.Creds(credentials.NewServerTLSFromCert(&cert)))
	standIn := cloudStandIn{heard: make(chan metadata.MD, 8)}
	pb.RegisterWeaviateServer(srv, standIn)
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(srv.Stop)

	for _, withCA := range []bool{false, true} {
		file := ""
		if withCA {
			file = caFile
		}
		conf, err := tlsConfig(file)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := restClient(conf, time.Second).Get(rest.URL + "/v1/meta")
		if err == nil {
			resp.Body.Close()
		}
		if withCA != (err == nil) || (!withCA && !strings.Contains(err.Error(), "certificate")) {
			t.Errorf("REST, ca_file %v: %v", withCA, err)
		}
		w, err := newGRPCWire(l.Addr().String(), "127.0.0.1", conf, "", 2*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		s := &Store{wire: w, class: "C", batchSize: 10, replication: 1, version: &nodeVersion{read: func() string { return "1.35.2" }}}
		_, err = s.Search(context.Background(), "ns", ragd.ChunkQuery{Text: "q", Mode: ragd.ModeKeyword, Limit: 5})
		if withCA != (err == nil) || (!withCA && !strings.Contains(err.Error(), "certificate")) {
			t.Errorf("gRPC search, ca_file %v: %v", withCA, err)
		}
		_ = w.conn.Close()
	}
	for name, file := range map[string]string{"missing": filepath.Join(t.TempDir(), "none.pem"), "not PEM": testenv.WriteFile(t, filepath.Join(t.TempDir(), "f"), "hello")} {
		if _, err := tlsConfig(file); err == nil || !strings.Contains(err.Error(), "weaviate.ca_file") {
			t.Errorf("%s bundle: %v", name, err)
		}
	}
}
