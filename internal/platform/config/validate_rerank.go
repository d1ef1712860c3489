package config

import (
	"fmt"
	"net/url"
	"strings"
)

// MaxRerankCandidates bounds rerank.candidates: a cross-encoder reads every
// candidate on every search.
const MaxRerankCandidates = 200

// validate reports the rerank settings at fault; the server's address only
// when reranking is on.
func (r Rerank) validate() []error {
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	check(r.Format == "tei" || r.Format == "cohere",
		"rerank.format must be tei (Hugging Face text-embeddings-inference) or cohere (Cohere v2, Jina, vLLM, llama.cpp server), not %q", r.Format)
	check(r.Timeout > 0, "rerank.timeout must be positive")
	check(r.Candidates >= 1 && r.Candidates <= MaxRerankCandidates, "rerank.candidates must be between 1 and %d, not %d", MaxRerankCandidates, r.Candidates)
	if r.Enabled {
		u, err := url.Parse(strings.TrimSpace(r.BaseURL))
		check(r.BaseURL != "", "rerank.enabled needs rerank.base_url (e.g. http://localhost:8080 for TEI, https://api.cohere.com/v2)")
		check(r.BaseURL == "" || (err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""),
			"rerank.base_url %q is not an http(s) URL", r.BaseURL)
	}
	return errs
}
