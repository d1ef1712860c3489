package main

import (
	"bytes"
	"os"
	"path/filepath"
)

// configPath is the config file to load when neither --config nor
// $RAGD_CONFIG names one: ./config.yaml if present, else the config.yaml
// of the checkout the running binary sits in (<checkout>/bin/ragd, where
// `make build` and `make run` put it), so that an agent host starting
// ragd from another directory gets the same settings, and relative paths
// the same files, as `make run` (config.Load takes them against the
// file's directory). "" when there is neither.
func configPath() string {
	if _, err := os.Stat("config.yaml"); err == nil {
		return "config.yaml"
	}
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return checkoutConfig(exe)
}

// checkoutConfig is the config.yaml of the ragd checkout exe was built
// into (exe is <checkout>/bin/ragd), or "".
func checkoutConfig(exe string) string {
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	dir := filepath.Dir(filepath.Dir(exe))
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil || !bytes.HasPrefix(mod, []byte("module ragd\n")) {
		return ""
	}
	path := filepath.Join(dir, "config.yaml")
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	return path
}
