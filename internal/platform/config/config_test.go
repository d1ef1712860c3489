package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The shipped config.yaml must load and equal the built-in defaults, so the
// file documents exactly what ragd does without it.
func TestShippedConfigMatchesDefaults(t *testing.T) {
	cfg, err := Load("../../../config.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	dir, _ := filepath.Abs("../../..")
	want.resolvePaths(dir) // relative paths are the file's directory's
	if !reflect.DeepEqual(cfg, want) {
		t.Fatalf("config.yaml differs from Default():\n got %+v\nwant %+v", cfg, want)
	}
}

// Every setting must be documented in config.yaml.
func TestShippedConfigNamesEverySetting(t *testing.T) {
	raw, err := os.ReadFile("../../../config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	root := reflect.TypeOf(Config{})
	for i := 0; i < root.NumField(); i++ {
		section := root.Field(i)
		if !strings.Contains(string(raw), "\n"+section.Tag.Get("yaml")+":") {
			t.Errorf("section %s missing from config.yaml", section.Tag.Get("yaml"))
		}
		fields := section.Type
		if fields.Kind() == reflect.Slice || fields.Kind() == reflect.Map {
			fields = fields.Elem() // a list's or a map's entries (watch:, embedders:) are documented in its example
		}
		for j := 0; j < fields.NumField(); j++ {
			key := fields.Field(j).Tag.Get("yaml")
			if !strings.Contains(string(raw), "  "+key+":") {
				t.Errorf("setting %s.%s missing from config.yaml", section.Tag.Get("yaml"), key)
			}
		}
	}
}

func TestEnvOverridesAndExpansion(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.yaml")
	yaml := "http:\n  addr: ${MY_ADDR}\n  wait_timeout: 5s\nweaviate:\n  url: ${UNSET_VAR:-http://w:1}\n  api_key: \"pa$$word\"\n"
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(path, []string{
		"MY_ADDR=0.0.0.0:9000",
		"RAGD_WEAVIATE_GRPC_ADDR=g:2",
		"RAGD_INGEST_ROOTS=/a, /b,",
		"RAGD_INGEST_ALLOW_PRIVATE_URLS=true",
		"RAGD_WORKER_CONCURRENCY=7",
		"RAGD_SEARCH_ALPHA=0.5",
		"RAGD_WORKER_TASK_TIMEOUT=90s",
	})
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"http.addr from ${VAR}", cfg.HTTP.Addr, "0.0.0.0:9000"},
		{"http.wait_timeout from yaml", cfg.HTTP.WaitTimeout, 5 * time.Second},
		{"${VAR:-default}", cfg.Weaviate.URL, "http://w:1"},
		{"bare $ kept", cfg.Weaviate.APIKey, "pa$$word"},
		{"RAGD_WEAVIATE_GRPC_ADDR", cfg.Weaviate.GRPCAddr, "g:2"},
		{"RAGD_INGEST_ROOTS", cfg.Ingest.Roots, []string{"/a", "/b"}},
		{"bool", cfg.Ingest.AllowPrivateURLs, true},
		{"int", cfg.Worker.Concurrency, 7},
		{"float", cfg.Search.Alpha, 0.5},
		{"duration", cfg.Worker.TaskTimeout, 90 * time.Second},
		{"default kept", cfg.Redis.KeyPrefix, "ragd"},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestBadSettingsAreNamed(t *testing.T) {
	for env, want := range map[string]string{
		"RAGD_WORKER_CONCURRENCY=lots": "RAGD_WORKER_CONCURRENCY",
		"RAGD_SEARCH_ALPHA=2":          "search.alpha",
		"RAGD_EMBED_PROVIDER=magic":    "embed.provider",
		"RAGD_INGEST_ROOTS=":           "ingest.roots",
		// Weaviate would read 1.5 as boost 0 and drop the heading trail.
		"RAGD_SEARCH_PATH_BOOST=1.5":    "search.path_boost",
		"RAGD_SEARCH_SYNONYM_SENSES=0":  "search.synonym_senses",
		"RAGD_SEARCH_RELATED_WEIGHT=-1": "search.related_weight",
		"RAGD_INGEST_OCR=on":            "ingest.ocr",
		"RAGD_INGEST_OCR_LANGUAGES=":    "ingest.ocr_languages",
		// a language is an argument to tesseract: no option may pass as one
		"RAGD_INGEST_OCR_LANGUAGES=eng --psm": "ingest.ocr_languages",
		"RAGD_INGEST_OCR_LANGUAGES=-c":        "ingest.ocr_languages",
		"RAGD_INGEST_PARSE_CONCURRENCY=0":     "ingest.parse_concurrency must be positive",
		"RAGD_EMBED_CONCURRENCY=0":            "embed.concurrency must be positive",
		"RAGD_WORKER_BATCH_WAIT=-1ms":         "worker.batch_wait must be between 0 and 1s",
		"RAGD_WORKER_BATCH_WAIT=2s":           "worker.batch_wait must be between 0 and 1s",
		"RAGD_SOURCES_S3_MAX_OBJECTS=0":       "sources.s3_max_objects must be positive",
		"RAGD_SOURCES_S3_TIMEOUT=0s":          "sources.s3_timeout must be positive",
		"RAGD_SOURCES_WEB_MAX_PAGES=0":        "sources.web_max_pages must be positive",
		"RAGD_SOURCES_WEB_MAX_DEPTH=0":        "sources.web_max_depth must be positive",
		"RAGD_SOURCES_WEB_MAX_PAGE_BYTES=0":   "sources.web_max_page_bytes must be positive",
		"RAGD_SOURCES_WEB_MAX_TIME=0s":        "sources.web_max_time must be positive",
		"RAGD_SOURCES_WEB_CONCURRENCY=17":     "sources.web_concurrency must be between 1 and 16, not 17",
		"RAGD_SOURCES_WEB_DELAY=-1ms":         "sources.web_delay must not be negative",
	} {
		_, err := Load("", []string{env})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: want an error naming %s, got %v", env, want, err)
		}
	}
	// WordNet's directory matters only to what reads it.
	if _, err := Load("", []string{"RAGD_SEARCH_WORDNET_DIR=", "RAGD_SEARCH_SYNONYM_EXPANSION=true"}); err == nil || !strings.Contains(err.Error(), "search.wordnet_dir") {
		t.Errorf("no WordNet directory with synonym expansion on: want an error naming search.wordnet_dir, got %v", err)
	}
	if _, err := Load("", []string{"RAGD_SEARCH_WORDNET_DIR=", "RAGD_SEARCH_SYNONYM_EXPANSION=false", "RAGD_SEARCH_KEYWORD_SYNONYM_EXPANSION=true"}); err == nil || !strings.Contains(err.Error(), "search.keyword_synonym_expansion") {
		t.Errorf("no WordNet directory with keyword-mode synonyms on: want an error naming it, got %v", err)
	}
	// Off by default (it lost recall on a question set ragd was
	// not tuned on), so no default setting reads WordNet.
	if d := Default(); d.Search.KeywordSynonymExpansion || d.Search.SynonymExpansion || d.Ingest.RelatedWords {
		t.Errorf("defaults: keyword_synonym_expansion %v, synonym_expansion %v, related_words %v: want all off",
			d.Search.KeywordSynonymExpansion, d.Search.SynonymExpansion, d.Ingest.RelatedWords)
	}
	if _, err := Load("", []string{"RAGD_SEARCH_WORDNET_DIR="}); err != nil {
		t.Errorf("no WordNet directory with the defaults: %v", err)
	}
	if _, err := Load("", []string{"RAGD_SEARCH_WORDNET_DIR=", "RAGD_SEARCH_SYNONYM_EXPANSION=false", "RAGD_SEARCH_KEYWORD_SYNONYM_EXPANSION=false", "RAGD_INGEST_RELATED_WORDS=false"}); err != nil {
		t.Errorf("no WordNet directory, nothing reading it: %v", err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "c.yaml")
	_ = os.WriteFile(path, []byte("http:\n  adr: x\n"), 0o600)
	if _, err := Load(path, nil); err == nil || !strings.Contains(err.Error(), "adr") {
		t.Errorf("unknown key: want an error naming it, got %v", err)
	}
}

// One setting caps JSON-RPC batches at /mcp and POST /; env overrides it.
func TestMaxBatchCalls(t *testing.T) {
	if got := Default().HTTP.MaxBatchCalls; got != 50 {
		t.Fatalf("default http.max_batch_calls = %d, want 50", got)
	}
	cfg, err := Load("", []string{"RAGD_HTTP_MAX_BATCH_CALLS=7"})
	if err != nil || cfg.HTTP.MaxBatchCalls != 7 {
		t.Fatalf("RAGD_HTTP_MAX_BATCH_CALLS=7: %d, %v", cfg.HTTP.MaxBatchCalls, err)
	}
	if _, err := Load("", []string{"RAGD_HTTP_MAX_BATCH_CALLS=0"}); err == nil || !strings.Contains(err.Error(), "http.max_batch_calls") {
		t.Fatalf("RAGD_HTTP_MAX_BATCH_CALLS=0: want an error naming http.max_batch_calls, got %v", err)
	}
}

// Rerank settings are checked with messages that name the setting and what
// it takes; the server's address only matters once reranking is on.
func TestRerankValidation(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Rerank)
		want string // "" means valid
	}{
		{"defaults (off)", func(*Rerank) {}, ""},
		{"off needs no url", func(r *Rerank) { r.Format = "cohere" }, ""},
		{"on with tei", func(r *Rerank) { r.Enabled, r.BaseURL = true, "http://127.0.0.1:8080" }, ""},
		{"on without url", func(r *Rerank) { r.Enabled = true }, "rerank.enabled needs rerank.base_url"},
		{"on with a bad url", func(r *Rerank) { r.Enabled, r.BaseURL = true, "127.0.0.1:8080/v1" }, `rerank.base_url "127.0.0.1:8080/v1" is not an http(s) URL`},
		{"unknown format", func(r *Rerank) { r.Format = "jina" }, `rerank.format must be tei (Hugging Face text-embeddings-inference) or cohere (Cohere v2, Jina, vLLM, llama.cpp server), not "jina"`},
		{"no candidates", func(r *Rerank) { r.Candidates = 0 }, "rerank.candidates must be between 1 and 200, not 0"},
		{"too many candidates", func(r *Rerank) { r.Candidates = 500 }, "rerank.candidates must be between 1 and 200, not 500"},
		{"no timeout", func(r *Rerank) { r.Timeout = 0 }, "rerank.timeout must be positive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Default()
			tc.edit(&cfg.Rerank)
			err := cfg.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("want valid, got %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("want an error containing %q, got %v", tc.want, err)
			}
		})
	}
}

// The rerank section is settable from the environment like every other.
func TestRerankFromEnvironment(t *testing.T) {
	cfg, err := Load("", []string{"RAGD_RERANK_ENABLED=true", "RAGD_RERANK_FORMAT=cohere",
		"RAGD_RERANK_BASE_URL=http://r:1/v1", "RAGD_RERANK_CANDIDATES=50", "RAGD_RERANK_TIMEOUT=2s"})
	if err != nil {
		t.Fatal(err)
	}
	r := cfg.Rerank
	if !r.Enabled || r.Format != "cohere" || r.BaseURL != "http://r:1/v1" || r.Candidates != 50 || r.Timeout != 2*time.Second {
		t.Fatalf("rerank from env: %+v", r)
	}
}

// A config written when resilience.tool_timeout bounded calls still loads:
// the setting is read (and warned about at start-up), though it bounds
// nothing now.
func TestOldToolTimeoutStillLoads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.yaml")
	if err := os.WriteFile(path, []byte("resilience:\n  tool_timeout: 30s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(path, nil)
	if err != nil || cfg.Resilience.ToolTimeout != 30*time.Second {
		t.Fatalf("old config: %v (tool_timeout %s)", err, cfg.Resilience.ToolTimeout)
	}
}

// jobs.retention's earlier name still sets it; both names with different
// values are refused by name; a retention under a minute is refused.
func TestJobRetentionNames(t *testing.T) {
	load := func(yaml string, env ...string) (Config, error) {
		t.Helper()
		path := filepath.Join(t.TempDir(), "c.yaml")
		if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
		return Load(path, env)
	}
	if cfg, err := load("jobs:\n  retention: 2h\n"); err != nil || cfg.Jobs.Retention != 2*time.Hour {
		t.Fatalf("jobs.retention: %v, %v", cfg.Jobs.Retention, err)
	}
	if cfg, err := load("worker:\n  job_retention: 3h\n"); err != nil || cfg.Jobs.Retention != 3*time.Hour {
		t.Fatalf("worker.job_retention alone: %v, %v", cfg.Jobs.Retention, err)
	}
	if cfg, err := load("", "RAGD_WORKER_JOB_RETENTION=90m"); err != nil || cfg.Jobs.Retention != 90*time.Minute {
		t.Fatalf("RAGD_WORKER_JOB_RETENTION alone: %v, %v", cfg.Jobs.Retention, err)
	}
	if cfg, err := load("worker:\n  job_retention: 3h\njobs:\n  retention: 3h\n"); err != nil || cfg.Jobs.Retention != 3*time.Hour {
		t.Fatalf("both names, same value: %v, %v", cfg.Jobs.Retention, err)
	}
	_, err := load("worker:\n  job_retention: 3h\njobs:\n  retention: 2h\n")
	if err == nil || !strings.Contains(err.Error(), "worker.job_retention") || !strings.Contains(err.Error(), "jobs.retention") {
		t.Fatalf("both names, two values: %v", err)
	}
	for _, bad := range []string{"jobs:\n  retention: 30s\n", "jobs:\n  retention: -1h\n"} {
		if _, err := load(bad); err == nil || !strings.Contains(err.Error(), "jobs.retention must be at least 1m") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if _, err := load("worker:\n  job_retention: -1h\n"); err == nil || !strings.Contains(err.Error(), "worker.job_retention") {
		t.Errorf("negative worker.job_retention: %v", err)
	}
}
