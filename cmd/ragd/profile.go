package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startCPUProfile writes a CPU profile of the whole run to the file
// RAGD_CPU_PROFILE names, when set: how an operator (or `make bench`)
// sees where a server process spends its time. The returned stop ends it.
func startCPUProfile() (stop func(), err error) {
	path := os.Getenv("RAGD_CPU_PROFILE")
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("RAGD_CPU_PROFILE: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("RAGD_CPU_PROFILE: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
