package mcp

import (
	"errors"
	"fmt"
	"strings"

	"ragd"
)

// toolError turns a service error into the message an agent reads in a tool
// result with isError:true. The session goes on; internal errors say only
// that something failed, never their text.
func toolError(err error) error {
	var re *ragd.Error
	if !errors.As(err, &re) {
		return errors.New("internal error: the server logged the details")
	}
	switch re.Kind {
	case ragd.KindInvalid:
		if len(re.Fields) == 0 {
			return fmt.Errorf("invalid input: %s", re.Error())
		}
		var parts []string
		for _, f := range re.Fields {
			parts = append(parts, f.Msg)
		}
		return fmt.Errorf("invalid input: %s", strings.Join(parts, "; "))
	case ragd.KindNotFound:
		return fmt.Errorf("not found: %s", re.Error())
	case ragd.KindForbidden:
		return fmt.Errorf("forbidden: %s", re.Error())
	case ragd.KindUnavailable:
		return fmt.Errorf("temporarily unavailable: %s; retry in %d s", re.Message, max(re.RetryAfterSeconds, 1))
	case ragd.KindTooLarge:
		return fmt.Errorf("too large: %s", re.Error())
	default:
		return errors.New("internal error: the server logged the details")
	}
}
