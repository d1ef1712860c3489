package config

import (
	"fmt"
	"regexp"
	"sort"

	"ragd"
)

// DefaultEmbedder is the name of the embedder configured under embed.
const DefaultEmbedder = "default"

var embedderName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)

// Embedder returns the embedder called name — embed for DefaultEmbedder,
// else embedders[name] with embed's defaults for the batch size and
// timeout it leaves out — and whether there is one.
func (c Config) Embedder(name string) (Embed, bool) {
	if name == DefaultEmbedder {
		return c.Embed, true
	}
	e, ok := c.Embedders[name]
	if !ok {
		return Embed{}, false
	}
	d := Default().Embed
	if e.Provider == "" {
		e.Provider = "openai"
	}
	if e.BatchSize == 0 {
		e.BatchSize = d.BatchSize
	}
	if e.Timeout == 0 {
		e.Timeout = d.Timeout
	}
	return e, true
}

// EmbedderNames lists DefaultEmbedder and the names under embedders, sorted.
func (c Config) EmbedderNames() []string {
	names := []string{DefaultEmbedder}
	for n := range c.Embedders {
		names = append(names, n)
	}
	sort.Strings(names[1:])
	return names
}

// ResolvedAPIKey is the API key, or the value of the environment variable
// an "env:VAR" key names (ragd.ResolveSecret).
func (e Embed) ResolvedAPIKey() (string, error) { return ragd.ResolveSecret("api_key", e.APIKey) }

func (c Config) validateEmbedders() []error {
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	for _, name := range c.EmbedderNames()[1:] {
		e, _ := c.Embedder(name)
		check(name != DefaultEmbedder && embedderName.MatchString(name),
			"embedders.%s: a name is lower-case letters, digits, - and _ (up to 63), and not %q (that is embed)", name, DefaultEmbedder)
		check(e.Provider == "glove" || e.Provider == "openai", "embedders.%s.provider must be glove or openai, not %q", name, e.Provider)
		check(e.Provider != "openai" || (e.BaseURL != "" && e.Model != ""), "embedders.%s: provider openai needs base_url and model", name)
		check(e.BatchSize > 0, "embedders.%s.batch_size must be positive", name)
		check(e.Timeout > 0, "embedders.%s.timeout must be positive", name)
	}
	return errs
}
