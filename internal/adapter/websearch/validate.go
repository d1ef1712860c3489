package websearch

import (
	"strings"

	"ragd"
)

// Limits on the number of results a caller may ask for.
const (
	// DefaultMaxResults is what the transports use when the caller is silent.
	DefaultMaxResults = 5
	// MaxResultsLimit is the most results one search may return.
	MaxResultsLimit = 20
)

// Validate checks a search's arguments the way every provider does: a
// non-blank query and 1 ≤ maxResults ≤ MaxResultsLimit. Failures are
// ragd.Invalid errors naming the field ("query" or "max_results").
func Validate(query string, maxResults int) error {
	if strings.TrimSpace(query) == "" {
		return ragd.Invalid("query", "missing", "query must not be empty")
	}
	if maxResults < 1 || maxResults > MaxResultsLimit {
		return ragd.Invalid("max_results", "value_error",
			"max_results must be between 1 and %d, got %d", MaxResultsLimit, maxResults)
	}
	return nil
}
