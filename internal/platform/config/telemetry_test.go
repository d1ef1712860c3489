package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Telemetry is off by default, and each bad setting is refused by its
// name.
func TestTelemetryErrorsNamed(t *testing.T) {
	if d := Default().Telemetry; d.OTLPEndpoint != "" {
		t.Fatalf("telemetry on by default: otlp_endpoint %q", d.OTLPEndpoint)
	}
	for env, want := range map[string]string{
		"RAGD_TELEMETRY_PROTOCOL=thrift":                    "telemetry.protocol",
		"RAGD_TELEMETRY_SAMPLE_RATIO=1.5":                   "telemetry.sample_ratio",
		"RAGD_TELEMETRY_SAMPLE_RATIO=-0.1":                  "telemetry.sample_ratio",
		"RAGD_TELEMETRY_SERVICE_NAME= ":                     "telemetry.service_name",
		"RAGD_TELEMETRY_OTLP_ENDPOINT=127.0.0.1:4318":       "telemetry.otlp_endpoint",
		"RAGD_TELEMETRY_OTLP_ENDPOINT=ftp://collector:4318": "telemetry.otlp_endpoint",
		"RAGD_TELEMETRY_OTLP_ENDPOINT=http://":              "telemetry.otlp_endpoint",
		"RAGD_TELEMETRY_HEADERS=novalue":                    "RAGD_TELEMETRY_HEADERS",
		"RAGD_TELEMETRY_HEADERS=bad name=x":                 "telemetry.headers",
	} {
		_, err := Load("", []string{env})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: want an error naming %s, got %v", env, want, err)
		}
	}
}

// Every telemetry setting comes from the file or the environment; the
// headers from the environment as OTEL_EXPORTER_OTLP_HEADERS writes them.
func TestTelemetryLoads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	yaml := "telemetry:\n  otlp_endpoint: https://otlp.example:4317\n  protocol: grpc\n  service_name: ragd-eu\n" +
		"  sample_ratio: 0.25\n  headers:\n    authorization: Bearer x\n  record_queries: true\n"
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Telemetry{OTLPEndpoint: "https://otlp.example:4317", Protocol: "grpc", ServiceName: "ragd-eu", SampleRatio: 0.25,
		Headers: map[string]string{"authorization": "Bearer x"}, RecordQueries: true}
	if !reflect.DeepEqual(cfg.Telemetry, want) {
		t.Fatalf("from the file: %+v, want %+v", cfg.Telemetry, want)
	}
	cfg, err = Load("", []string{"RAGD_TELEMETRY_OTLP_ENDPOINT=http://c:4318", "RAGD_TELEMETRY_HEADERS=api-key=k1, x-tenant = a=b"})
	if err != nil {
		t.Fatal(err)
	}
	if h := cfg.Telemetry.Headers; !reflect.DeepEqual(h, map[string]string{"api-key": "k1", "x-tenant": "a=b"}) {
		t.Fatalf("headers from the environment: %v", h)
	}
}
