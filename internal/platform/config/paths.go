package config

import (
	"fmt"
	"os"
	"path/filepath"
)

// resolvePaths makes the relative paths among the settings absolute
// against base: data.dir, embed.model_path (and each embedder's),
// ingest.roots, the keys' roots, the watched directories,
// weaviate.ca_file and search.wordnet_dir. Empty ones stay empty.
func (c *Config) resolvePaths(base string) {
	abs := func(p *string) {
		if *p != "" && !filepath.IsAbs(*p) {
			*p = filepath.Join(base, *p)
		}
	}
	abs(&c.Data.Dir)
	abs(&c.Embed.ModelPath)
	for name, e := range c.Embedders {
		abs(&e.ModelPath)
		c.Embedders[name] = e
	}
	for i := range c.Ingest.Roots {
		abs(&c.Ingest.Roots[i])
	}
	for i := range c.Auth.Keys {
		for j := range c.Auth.Keys[i].Roots {
			abs(&c.Auth.Keys[i].Roots[j])
		}
	}
	for i := range c.Watch {
		abs(&c.Watch[i].Path)
	}
	abs(&c.Weaviate.CAFile)
	abs(&c.Search.WordNetDir)
}

// relativeBase is the directory the relative paths of the defaults and
// of the config file at path are taken against: the file's own, the
// working directory without a file.
func relativeBase(path string) (string, error) {
	if path == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("config: the working directory: %w", err)
		}
		return wd, nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("config %s: %w", path, err)
	}
	return filepath.Dir(abs), nil
}
