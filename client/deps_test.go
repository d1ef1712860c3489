package client_test

import (
	"os/exec"
	"strings"
	"testing"
)

// A program that talks to ragd over HTTP pulls in none of the server: the
// client's imports are the wire types and package ragd, and at most 8
// third-party modules.
func TestClientCarriesNoServer(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{with .Module}}{{.Path}}{{end}}", "ragd/client").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	modules := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, module, _ := strings.Cut(line, " ")
		if strings.HasPrefix(pkg, "ragd/") && pkg != "ragd/client" && pkg != "ragd/wire" {
			t.Errorf("the client imports %s, a server package", pkg)
		}
		if module != "" && module != "ragd" {
			modules[module] = true
		}
	}
	if len(modules) > 8 {
		t.Errorf("the client pulls %d third-party modules, at most 8 allowed: %v", len(modules), modules)
	}
}
