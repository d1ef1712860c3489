package authn

import (
	"errors"
	"fmt"
	"net/http"
)

// UnreadBody is the status and message of a request body that could not
// be read, what naming it ("the login body"): what the server's body
// reader says of it when it tells its status (past http.body_timeout: 408,
// cut short: 400), 413 past a byte limit, else 400. The login and /mcp,
// which read their bodies themselves, answer through it.
func UnreadBody(err error, what string) (int, string) {
	var told interface{ HTTPStatus() int }
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &told):
		return told.HTTPStatus(), err.Error()
	case errors.As(err, &tooLarge):
		return http.StatusRequestEntityTooLarge, fmt.Sprintf("request body exceeds %d bytes", tooLarge.Limit)
	}
	return http.StatusBadRequest, "cannot read " + what
}
