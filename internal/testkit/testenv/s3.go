package testenv

import (
	"os"
	"testing"
)

// S3Server is the S3-compatible server `make test` starts (scripts/lib.sh
// start_s3_server: gofakes3's command, its own process on its own port),
// with the key pair the tests sign with. It checks no signature: any key
// pair is accepted.
type S3Server struct {
	// Endpoint is its URL, e.g. http://127.0.0.1:29997.
	Endpoint             string
	AccessKey, SecretKey string
}

// S3 is the test S3 server; the test fails when `make test` did not start
// it (skips with -short).
func S3(t testing.TB) S3Server {
	t.Helper()
	endpoint := os.Getenv("RAGD_TEST_S3_ENDPOINT")
	if endpoint == "" {
		if testing.Short() {
			t.Skip("RAGD_TEST_S3_ENDPOINT not set (-short): skipping a test that lists the S3 server")
		}
		t.Fatal("RAGD_TEST_S3_ENDPOINT is not set: run the tests with `make test`, which builds and starts the S3 server " +
			"(scripts/lib.sh install_s3_server, start_s3_server and export_s3_test_env)")
	}
	return S3Server{Endpoint: endpoint, AccessKey: os.Getenv("RAGD_TEST_S3_ACCESS_KEY"), SecretKey: os.Getenv("RAGD_TEST_S3_SECRET_KEY")}
}
