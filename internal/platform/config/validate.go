package config

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"time"
)

// ocrLanguages are tesseract's language codes joined by "+": eng, chi_sim.
var ocrLanguages = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_/]*(\+[A-Za-z][A-Za-z0-9_/]*)*$`)

// Validate reports settings that would make ragd misbehave, naming each.
func (c Config) Validate() error {
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	check(c.HTTP.Addr != "", "http.addr is empty")
	check(c.HTTP.MaxBodyBytes > 0, "http.max_body_bytes must be positive")
	check(c.HTTP.WaitTimeout > 0, "http.wait_timeout must be positive")
	check(c.HTTP.MaxBatchCalls > 0, "http.max_batch_calls must be positive")
	check(c.HTTP.BodyTimeout > 0, "http.body_timeout must be positive")
	check(c.HTTP.BodyIdleTimeout > 0, "http.body_idle_timeout must be positive")
	errs = append(errs, c.Redis.check()...)
	check(c.Redis.KeyPrefix != "", "redis.key_prefix is empty")
	check(c.Weaviate.URL != "", "weaviate.url is empty")
	check(c.Weaviate.GRPCAddr != "", "weaviate.grpc_addr is empty")
	check(c.Weaviate.Collection != "", "weaviate.collection is empty")
	check(c.Weaviate.BatchSize > 0, "weaviate.batch_size must be positive")
	errs = append(errs, c.Weaviate.validateNodes()...)
	check(c.Embed.Provider == "glove" || c.Embed.Provider == "openai", "embed.provider must be glove or openai, not %q", c.Embed.Provider)
	if c.Embed.Provider == "openai" {
		check(c.Embed.BaseURL != "" && c.Embed.Model != "", "embed.provider openai needs embed.base_url and embed.model")
	}
	check(c.Embed.BatchSize > 0, "embed.batch_size must be positive")
	check(c.Embed.Concurrency > 0, "embed.concurrency must be positive")
	errs = append(errs, c.validateEmbedders()...)
	check(len(c.Ingest.Roots) > 0, "ingest.roots is empty: name at least one directory files may be ingested from")
	check(c.Ingest.ChunkTokens >= 16, "ingest.chunk_tokens must be at least 16")
	check(c.Ingest.ChunkOverlap >= 0 && c.Ingest.ChunkOverlap < c.Ingest.ChunkTokens, "ingest.chunk_overlap must be between 0 and chunk_tokens")
	check(c.Ingest.MaxFileBytes > 0, "ingest.max_file_bytes must be positive")
	check(c.Ingest.MaxDirectoryFiles > 0, "ingest.max_directory_files must be positive")
	check(c.Ingest.MaxUploadFiles > 0, "ingest.max_upload_files must be positive")
	check(c.Ingest.MaxPages > 0, "ingest.max_pages must be positive")
	check(c.Ingest.MaxDocumentChunks > 0, "ingest.max_document_chunks must be positive")
	check(c.Ingest.MaxDocumentTextBytes > 0, "ingest.max_document_text_bytes must be positive")
	check(c.Ingest.MaxURLBytes >= 256, "ingest.max_url_bytes must be at least 256")
	check(c.Ingest.ParseTimeout > 0, "ingest.parse_timeout must be positive")
	check(c.Ingest.ParseConcurrency > 0, "ingest.parse_concurrency must be positive")
	check(c.Ingest.ParseMemoryBytes >= 64<<20, "ingest.parse_memory_bytes must be at least 67108864 (64 MiB)")
	check(c.Ingest.OCR == "auto" || c.Ingest.OCR == "off", "ingest.ocr must be auto or off, not %q", c.Ingest.OCR)
	check(ocrLanguages.MatchString(c.Ingest.OCRLanguages), "ingest.ocr_languages must be tesseract language codes joined by '+' (e.g. eng+deu), not %q", c.Ingest.OCRLanguages)
	check(c.Worker.Concurrency > 0, "worker.concurrency must be positive")
	check(c.Worker.PollInterval > 0 && c.Worker.PollInterval <= time.Minute, "worker.poll_interval must be positive and at most 1m")
	check(c.Worker.Queue != "", "worker.queue is empty")
	check(c.Worker.BatchWait >= 0 && c.Worker.BatchWait <= time.Second, "worker.batch_wait must be between 0 and 1s, not %s", c.Worker.BatchWait)
	check(c.Worker.MaxRetries >= 0, "worker.max_retries must not be negative")
	check(c.Jobs.Retention >= time.Minute, "jobs.retention must be at least 1m (a finished job must stay readable for its caller), not %s", c.Jobs.Retention)
	check(c.Worker.JobRetention >= 0, "worker.job_retention must not be negative (it is jobs.retention's earlier name: use jobs.retention)")
	errs = append(errs, c.Search.validate(c.UsesWordNet())...)
	check((c.LLM.BaseURL == "") == (c.LLM.Model == ""), "llm.base_url and llm.model are set together (or neither, for extractive answers)")
	check(c.LLM.Timeout > 0, "llm.timeout must be positive")
	errs = append(errs, c.Rerank.validate()...)
	check(c.Answer.MaxSentences > 0, "answer.max_sentences must be positive")
	check(c.Answer.AgentMaxSteps > 0 && c.Answer.AgentMaxSteps <= 20, "answer.agent_max_steps must be between 1 and 20")
	check(c.WebSearch.Timeout > 0, "websearch.timeout must be positive")
	check(c.Cache.TTL > 0, "cache.ttl must be positive")
	check(c.Resilience.ToolTimeout >= 0, "resilience.tool_timeout must not be negative (it is no longer used: remove it)")
	check(c.Resilience.MaxRetries >= 0, "resilience.max_retries must not be negative")
	check(c.Resilience.CircuitFailThreshold > 0, "resilience.circuit_fail_threshold must be positive")
	check(c.Resilience.CircuitOpenFor > 0, "resilience.circuit_open_for must be positive")
	check(c.Import.MaxBytes > 0, "import.max_bytes must be positive")
	errs = append(errs, c.Telemetry.validate()...)
	errs = append(errs, c.Sources.validate()...)
	check(c.MCP.WaitTimeout > 0 && c.MCP.WaitTimeout < time.Minute, "mcp.wait_timeout must be positive and under a minute (clients time out at 60 s)")
	check(c.Auth.SessionTTL > 0, "auth.session_ttl must be positive")
	switch c.Auth.Mode {
	case "disabled":
	case "static-token":
		check(c.Auth.APIKey != "" || len(c.Auth.Keys) > 0, "auth.mode static-token needs auth.api_key or auth.keys")
	case "jwt":
		check(c.Auth.JWKSURL != "" && c.Auth.Issuer != "" && c.Auth.Audience != "", "auth.mode jwt needs auth.jwks_url, auth.issuer and auth.audience")
	case "oauth":
		errs = append(errs, c.Auth.OAuth.validate()...)
	default:
		check(false, "auth.mode must be disabled, static-token, jwt or oauth, not %q", c.Auth.Mode)
	}
	return errors.Join(errs...)
}

// validate checks the search settings; usesWordNet says whether a setting
// reads WordNet (Config.UsesWordNet).
func (s Search) validate(usesWordNet bool) []error {
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	check(s.Alpha >= 0 && s.Alpha <= 1, "search.alpha must be between 0 and 1")
	check(s.MMRLambda >= 0 && s.MMRLambda <= 1, "search.mmr_lambda must be between 0 and 1")
	check(s.RRFK > 0, "search.rrf_k must be positive")
	check(s.QueryCacheSize >= 0, "search.query_cache_size must not be negative")
	check(s.Fusion == "relative" || s.Fusion == "ranked", "search.fusion must be relative or ranked, not %q", s.Fusion)
	// Weaviate reads a BM25 property boost as an integer: 1.5 would silently
	// become 0 and drop the heading trail from the search.
	check(s.PathBoost >= 1 && s.PathBoost <= 10 && s.PathBoost == math.Trunc(s.PathBoost),
		"search.path_boost must be a whole number from 1 to 10 (Weaviate takes only integer boosts)")
	check(s.SynonymSenses > 0 && s.SynonymSenses <= 10, "search.synonym_senses must be between 1 and 10")
	check(s.RelatedWeight >= 0 && s.RelatedWeight <= 1, "search.related_weight must be between 0 and 1")
	check(s.WordNetDir != "" || !usesWordNet,
		"search.wordnet_dir is empty but search.synonym_expansion, search.keyword_synonym_expansion or ingest.related_words needs it")
	check(s.NeighbourMinSimilarity > 0 && s.NeighbourMinSimilarity < 1, "search.neighbour_min_similarity must be between 0 and 1")
	check(s.NeighbourTerms > 0 && s.NeighbourTerms <= 20, "search.neighbour_terms must be between 1 and 20")
	check(s.PRFDocs > 0 && s.PRFDocs <= 20, "search.prf_docs must be between 1 and 20")
	check(s.PRFTerms > 0 && s.PRFTerms <= 50, "search.prf_terms must be between 1 and 50")
	return errs
}

// UsesWordNet reports whether a setting reads WordNet: synonym expansion
// (in every mode or in keyword mode) or related words at ingest.
func (c Config) UsesWordNet() bool {
	return c.Search.SynonymExpansion || c.Search.KeywordSynonymExpansion || c.Ingest.RelatedWords
}
