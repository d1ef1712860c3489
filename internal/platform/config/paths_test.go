package config

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Relative paths of a config file and of the defaults are the file's
// directory's, wherever ragd starts; those of RAGD_* variables and, with
// no file, the defaults are the working directory's.
func TestRelativePathsFollowTheConfigFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(path, []byte("data:\n  dir: ./state\ningest:\n  roots: [\".\", docs, /abs]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	wd := t.TempDir()
	t.Chdir(wd)
	wd, _ = os.Getwd()
	cfg, err := Load(path, []string{"RAGD_EMBED_MODEL_PATH=m.bin"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Data.Dir != filepath.Join(dir, "state") || !slices.Equal(cfg.Ingest.Roots, []string{dir, filepath.Join(dir, "docs"), "/abs"}) ||
		cfg.Embed.ModelPath != filepath.Join(wd, "m.bin") || cfg.Search.WordNetDir != "/usr/share/wordnet" {
		t.Errorf("from a file: data.dir %s, roots %v, model_path %s, wordnet_dir %s", cfg.Data.Dir, cfg.Ingest.Roots, cfg.Embed.ModelPath, cfg.Search.WordNetDir)
	}
	if cfg, err = Load("", nil); err != nil || cfg.Data.Dir != filepath.Join(wd, "data") || !slices.Equal(cfg.Ingest.Roots, []string{wd}) ||
		cfg.GloVePath() != filepath.Join(wd, "data", "models", "glove-sif-100d.bin") {
		t.Errorf("without a file: %v, data.dir %s, roots %v", err, cfg.Data.Dir, cfg.Ingest.Roots)
	}
}
