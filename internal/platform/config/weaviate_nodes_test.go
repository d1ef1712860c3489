package config

import (
	"reflect"
	"strings"
	"testing"
)

// Several Weaviate nodes are given as comma-separated lists, from the file
// or the environment; the replication settings default to factor 1 and
// QUORUM.
func TestWeaviateNodeListsAndReplication(t *testing.T) {
	cfg, err := Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Weaviate.ReplicationFactor != 1 || cfg.Weaviate.Consistency != "QUORUM" {
		t.Fatalf("defaults: factor %d, consistency %q", cfg.Weaviate.ReplicationFactor, cfg.Weaviate.Consistency)
	}
	cfg, err = Load("", []string{
		"RAGD_WEAVIATE_URL=http://127.0.0.1:8080, http://127.0.0.1:8081,http://127.0.0.1:8082",
		"RAGD_WEAVIATE_GRPC_ADDR=127.0.0.1:50051,127.0.0.1:50052,127.0.0.1:50053",
		"RAGD_WEAVIATE_REPLICATION_FACTOR=3", "RAGD_WEAVIATE_CONSISTENCY=ALL",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"http://127.0.0.1:8080", "http://127.0.0.1:8081", "http://127.0.0.1:8082"}
	if got := Nodes(cfg.Weaviate.URL); !reflect.DeepEqual(got, want) {
		t.Errorf("nodes %v, want %v", got, want)
	}
	if cfg.Weaviate.ReplicationFactor != 3 || cfg.Weaviate.Consistency != "ALL" {
		t.Errorf("env: factor %d, consistency %q", cfg.Weaviate.ReplicationFactor, cfg.Weaviate.Consistency)
	}
}

func TestBadWeaviateNodeSettingsAreNamed(t *testing.T) {
	for _, c := range []struct {
		env  []string
		want string
	}{
		{[]string{"RAGD_WEAVIATE_URL=http://a:1,http://b:1", "RAGD_WEAVIATE_GRPC_ADDR=a:2"}, "weaviate.url lists 2 nodes but weaviate.grpc_addr 1"},
		{[]string{"RAGD_WEAVIATE_URL=http://a:1,b:1", "RAGD_WEAVIATE_GRPC_ADDR=a:2,b:2"}, `weaviate.url: "b:1" is not an http(s) URL`},
		{[]string{"RAGD_WEAVIATE_REPLICATION_FACTOR=0"}, "weaviate.replication_factor must be at least 1"},
		{[]string{"RAGD_WEAVIATE_CONSISTENCY=MOST"}, `weaviate.consistency must be ONE, QUORUM or ALL, not "MOST"`},
	} {
		_, err := Load("", c.env)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: want an error containing %q, got %v", c.env, c.want, err)
		}
	}
}
