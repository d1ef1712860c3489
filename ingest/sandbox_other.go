//go:build !linux

package ingest

import (
	"os"
	"syscall"
	"time"
)

func sandboxProcAttr() *syscall.SysProcAttr { return nil }

func sandboxExecutable() (string, error) { return os.Executable() }

func setDataLimit(int64) {}

func capCPU(time.Duration) {}
