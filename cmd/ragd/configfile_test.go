package main

import (
	"os"
	"path/filepath"
	"testing"
)

// A binary in <checkout>/bin finds the checkout's config.yaml; one
// elsewhere, or in another module's bin, finds none.
func TestCheckoutConfig(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{"go.mod": "module ragd\n\ngo 1.26\n", "config.yaml": "log:\n  level: info\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if got := checkoutConfig(filepath.Join(dir, "bin", "ragd")); got != filepath.Join(dir, "config.yaml") {
		t.Errorf("in the checkout's bin: %q", got)
	}
	if got := checkoutConfig(filepath.Join(dir, "ragd")); got != "" {
		t.Errorf("beside the checkout: %q", got)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/other\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := checkoutConfig(filepath.Join(dir, "bin", "ragd")); got != "" {
		t.Errorf("another module's bin: %q", got)
	}
}
