package pdftext

import (
	"os"
	"os/exec"
	"syscall"
	"time"
)

// sandboxProcAttr kills the child with its parent: an orphaned parser
// must not spin on. The child leads a process group of its own, so that
// killing the group (sandboxKill) also ends the OCR programs it runs.
func sandboxProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
}

// toolProcAttr kills an OCR program with the sandbox that runs it.
func toolProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// sandboxKill is the sandbox's cancel function: at the deadline or when the
// job ends, its whole process group is killed, OCR programs included.
func sandboxKill(cmd *exec.Cmd) func() error {
	return func() error {
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
			return os.ErrProcessDone
		}
		return nil
	}
}

// sandboxExecutable is the running binary through /proc, which still works
// after the file on disk was replaced by an upgrade.
func sandboxExecutable() (string, error) { return "/proc/self/exe", nil }

// dataLimitSlack is the runtime's own data (its metadata, the binary's
// writable segments) beyond the heap budget.
const dataLimitSlack = 256 << 20

// setDataLimit caps the data segment (RLIMIT_DATA counts private writable
// mappings: the Go heap), so a single huge allocation fails at once rather
// than after the watchdog's next look.
func setDataLimit(budget int64) {
	if raceEnabled {
		return
	}
	lim := uint64(budget) + dataLimitSlack
	_ = syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: lim, Max: lim})
}

// capCPU is a backstop for the parent's kill at the deadline: a child that
// outlives it somehow still stops once it has used that much CPU.
func capCPU(timeout time.Duration) {
	if timeout <= 0 {
		return
	}
	secs := uint64(timeout/time.Second) + 5
	_ = syscall.Setrlimit(syscall.RLIMIT_CPU, &syscall.Rlimit{Cur: secs, Max: secs + 5})
}
