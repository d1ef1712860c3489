package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Named embedders load with embed's defaults for what they leave out,
// resolve env:VAR keys, and a bad entry is an error naming it.
func TestEmbedders(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	yaml := "embedders:\n  nomic:\n    base_url: http://127.0.0.1:11434/v1\n    model: nomic-embed-text\n    api_key: env:NOMIC_KEY\n"
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	e, ok := cfg.Embedder("nomic")
	if !ok || e.Provider != "openai" || e.BatchSize != 64 || e.Timeout != 30*time.Second || e.Model != "nomic-embed-text" {
		t.Fatalf("nomic: %+v, %v", e, ok)
	}
	if got := cfg.EmbedderNames(); strings.Join(got, ",") != "default,nomic" {
		t.Fatalf("names: %v", got)
	}
	if _, ok := cfg.Embedder("other"); ok {
		t.Fatal("an embedder the config does not name")
	}
	t.Setenv("NOMIC_KEY", "")
	if _, err := e.ResolvedAPIKey(); err == nil || !strings.Contains(err.Error(), "NOMIC_KEY") {
		t.Fatalf("unset key variable: %v", err)
	}
	t.Setenv("NOMIC_KEY", "k-1")
	if key, err := e.ResolvedAPIKey(); err != nil || key != "k-1" {
		t.Fatalf("key from the environment: %q, %v", key, err)
	}
	for name, bad := range map[string]Embed{
		"default": {BaseURL: "http://x/v1", Model: "m"},
		"Big":     {BaseURL: "http://x/v1", Model: "m"},
		"nourl":   {Model: "m"},
		"magic":   {Provider: "magic"},
	} {
		c := Default()
		c.Embedders = map[string]Embed{name: bad}
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "embedders."+name) {
			t.Errorf("embedders.%s %+v: %v, want an error naming it", name, bad, err)
		}
	}
}
