//go:build !linux

package pdftext

import (
	"os"
	"os/exec"
	"syscall"
	"time"
)

func sandboxProcAttr() *syscall.SysProcAttr { return nil }

func toolProcAttr() *syscall.SysProcAttr { return nil }

func sandboxKill(cmd *exec.Cmd) func() error {
	return func() error { return cmd.Process.Kill() }
}

func sandboxExecutable() (string, error) { return os.Executable() }

func setDataLimit(int64) {}

func capCPU(time.Duration) {}
