package ingest

import (
	"errors"

	"ragd"
	"ragd/internal/ingest/sourcetype"
)

// IsPermanent reports whether retrying the operation that returned err cannot
// succeed: unparseable documents, unsupported types, HTTP 4xx answers,
// refused addresses, invalid requests and sources over the size limit.
// Network failures and HTTP 5xx answers are transient.
func IsPermanent(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, sourcetype.ErrUnsupported) {
		return true
	}
	// a *document.ParseError says so too
	var p interface{ Permanent() bool }
	if errors.As(err, &p) {
		return p.Permanent()
	}
	switch ragd.KindOf(err) {
	case ragd.KindInvalid, ragd.KindForbidden, ragd.KindTooLarge:
		return true
	}
	return false
}
