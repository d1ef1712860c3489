package eval

import (
	"os/exec"
	"strings"
)

func execGo(args ...string) (string, error) {
	out, err := exec.Command("go", args...).Output()
	return strings.TrimSpace(string(out)), err
}
