package cli

import (
	"context"
	"errors"
	"fmt"

	"ragd/client"
)

// usageError is a wrong command line (ExitUsage).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// failedError is a job that failed or was cancelled (ExitFailed).
type failedError struct{ msg string }

func (e *failedError) Error() string { return e.msg }

// errHelp is --help: the usage is printed, and the command succeeds.
var errHelp = errors.New("help")

// exitCode is the exit status err calls for.
func exitCode(err error) int {
	var usage *usageError
	switch {
	case err == nil, errors.Is(err, errHelp):
		return ExitOK
	case errors.As(err, &usage):
		return ExitUsage
	case client.IsUnreachable(err):
		return ExitUnreachable
	case errors.Is(err, context.Canceled):
		return ExitInterrupted
	default:
		return ExitFailed
	}
}
