package app

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"ragd/internal/adapter/wordnet"
	"ragd/internal/platform/config"
	"ragd/internal/testkit/testenv"
)

// Without WordNet ragd still starts: the thesaurus is nil (searches are not
// expanded with synonyms) and the warning says what is missing.
func TestThesaurusMissingDatabaseWarns(t *testing.T) {
	cfg := config.Default()
	cfg.Search.SynonymExpansion = true // the database is read only when something uses it
	cfg.Search.WordNetDir = t.TempDir()
	var logs bytes.Buffer
	th := thesaurus(cfg, slog.New(slog.NewTextHandler(&logs, nil)))
	if th != nil {
		t.Fatalf("thesaurus from an empty directory: %T, want nil", th)
	}
	if !strings.Contains(logs.String(), "wordnet-base") || !strings.Contains(logs.String(), "level=WARN") {
		t.Errorf("warning should name the package to install: %q", logs.String())
	}
}

// The database is used only when a technique needs it, and then shared.
func TestThesaurusLoadedOnlyWhenUsed(t *testing.T) {
	cfg := config.Default()
	cfg.Search.WordNetDir = testenv.WordNetDir(t)
	log := slog.New(slog.DiscardHandler)
	cfg.Search.SynonymExpansion, cfg.Search.KeywordSynonymExpansion, cfg.Ingest.RelatedWords = false, false, false
	if th := thesaurus(cfg, log); th != nil {
		t.Errorf("neither synonyms nor related words on: thesaurus %T loaded", th)
	}
	cfg.Ingest.RelatedWords = true
	th := thesaurus(cfg, log)
	if th == nil {
		t.Fatal("related words on: no thesaurus")
	}
	if got := th.Related("urgent", 1); !strings.Contains(strings.Join(got, " "), "urgency") {
		t.Errorf("Related(urgent) = %v, want urgency among them", got)
	}
	cfg.Ingest.RelatedWords, cfg.Search.SynonymExpansion = false, true
	again, ok := thesaurus(cfg, log).(*wordnet.Lazy)
	first, _ := th.(*wordnet.Lazy)
	if !ok || first == nil || again.Load() != first.Load() {
		t.Error("the database should be read once per directory and shared")
	}
}
