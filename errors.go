package ragd

import (
	"errors"
	"fmt"
	"regexp"
)

// ErrorKind classifies service-layer errors so transports can map them to
// their own status codes (REST) or error results (MCP).
type ErrorKind int

// The error kinds.
const (
	KindInternal    ErrorKind = iota // a bug or an unexpected failure
	KindInvalid                      // the request is malformed or violates a rule (422)
	KindNotFound                     // the named job, document or namespace does not exist (404)
	KindForbidden                    // the caller may not touch this (403)
	KindUnavailable                  // a dependency is down, timed out or its breaker is open (503)
	KindTooLarge                     // the input exceeds a configured size (413)
	KindMediaType                    // the body's Content-Type is not one the endpoint reads (415)
	KindConflict                     // the request conflicts with the target's state, e.g. cancelling a finished job (409)
)

// FieldError is one problem with one field of a request, in the shape of
// FastAPI's 422 detail entries.
type FieldError struct {
	Loc  []string `json:"loc"`
	Msg  string   `json:"msg"`
	Type string   `json:"type"`
}

// Error is the typed error the service layer returns.
type Error struct {
	Kind    ErrorKind
	Message string
	// Fields, for KindInvalid, lists each field at fault.
	Fields []FieldError
	// RetryAfterSeconds, for KindUnavailable, hints when to try again.
	RetryAfterSeconds int
	Err               error
}

// Error is the message, followed by the cause's when there is one.
func (e *Error) Error() string {
	if e.Err != nil && e.Message == "" {
		return e.Err.Error()
	}
	if e.Err != nil {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

// Unwrap returns the cause, for errors.Is and errors.As.
func (e *Error) Unwrap() error { return e.Err }

// Invalid returns a KindInvalid error for one field.
func Invalid(field, typ, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	return &Error{Kind: KindInvalid, Message: msg, Fields: []FieldError{{Loc: []string{"body", field}, Msg: msg, Type: typ}}}
}

// NotFound returns a KindNotFound error.
func NotFound(format string, args ...any) *Error {
	return &Error{Kind: KindNotFound, Message: fmt.Sprintf(format, args...)}
}

// Forbidden returns a KindForbidden error.
func Forbidden(format string, args ...any) *Error {
	return &Error{Kind: KindForbidden, Message: fmt.Sprintf(format, args...)}
}

// Conflict returns a KindConflict error.
func Conflict(format string, args ...any) *Error {
	return &Error{Kind: KindConflict, Message: fmt.Sprintf(format, args...)}
}

// Unavailable wraps err as a KindUnavailable error naming the dependency.
func Unavailable(dependency string, err error) *Error {
	return &Error{Kind: KindUnavailable, Message: dependency + " is unavailable", Err: err, RetryAfterSeconds: 5}
}

// unavailableText finds, in an error's text, the words of the
// KindUnavailable errors ragd makes for a dependency: Unavailable's and an
// open breaker's "<dependency> is unavailable", a guard's timeout
// "<dependency> did not answer within …".
var unavailableText = regexp.MustCompile(`(?:^|: )((?:weaviate|embedder(?::[^ :]+)*|llm|websearch|reranker|redis) (?:is unavailable|did not answer within))`)

// UnavailableIn returns what of text — a job's error, which keeps only its
// error's text — says a dependency was unavailable ("weaviate is
// unavailable"), or "" when it does not: a job that failed so failed for
// a dependency's health, not for its input, and may be run again.
func UnavailableIn(text string) string {
	if m := unavailableText.FindStringSubmatch(text); m != nil {
		return m[1]
	}
	return ""
}

// PublicMessage is what of err a caller may read, over any transport: the
// text of an Error of a kind the caller can act on — of an unavailable
// dependency only its Message, which names the dependency but not the
// failure it wraps — and "" for anything else, whose text (hosts,
// addresses, a dependency's own answer) only the server's log shows.
func PublicMessage(err error) string {
	var e *Error
	switch {
	case !errors.As(err, &e) || e.Kind == KindInternal:
		return ""
	case e.Kind == KindUnavailable:
		return e.Message
	}
	return e.Error()
}

// KindOf returns the kind of err, KindInternal for untyped errors.
func KindOf(err error) ErrorKind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindInternal
}

// ErrBreakerOpen is matched (errors.Is) by the error of a call a
// dependency's circuit breaker refused: the breaker is open after
// repeated failures, or half-open and already probing. Its Kind is
// KindUnavailable.
var ErrBreakerOpen = errors.New("circuit breaker is open")
