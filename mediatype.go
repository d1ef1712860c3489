package ragd

import (
	"mime"
	"strconv"
)

// CheckJSON is the one rule for the body a JSON endpoint reads (REST, MCP,
// web search, the console's login): its Content-Type must be
// application/json, parameters such as charset allowed. Any other is a
// KindMediaType error (415) naming it. JSON endpoints refuse every other
// type because a browser posts text/plain, form and multipart bodies
// cross-site without asking first.
func CheckJSON(contentType string) error {
	if mt, _, err := mime.ParseMediaType(contentType); err == nil && mt == "application/json" {
		return nil
	}
	got := "none"
	if contentType != "" {
		got = strconv.Quote(contentType)
	}
	return &Error{Kind: KindMediaType, Message: "unsupported Content-Type " + got + ": send the body as application/json"}
}
