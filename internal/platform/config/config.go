// Package config loads ragd's settings: built-in defaults, then config.yaml
// (with ${VAR} expanded), then RAGD_<SECTION>_<KEY> environment variables.
package config

import (
	"time"
)

// Config is every ragd setting. The yaml tags are the config.yaml keys and,
// upper-cased and prefixed with RAGD_, the environment variable names.
type Config struct {
	HTTP     HTTP     `yaml:"http"`
	Redis    Redis    `yaml:"redis"`
	Weaviate Weaviate `yaml:"weaviate"`
	Data     Data     `yaml:"data"`
	Embed    Embed    `yaml:"embed"`
	// Embedders are named embedders besides embed (which is named
	// "default"), for POST /embedder/switch.
	Embedders  map[string]Embed `yaml:"embedders"`
	Ingest     Ingest           `yaml:"ingest"`
	Worker     Worker           `yaml:"worker"`
	Jobs       Jobs             `yaml:"jobs"`
	Search     Search           `yaml:"search"`
	LLM        LLM              `yaml:"llm"`
	Rerank     Rerank           `yaml:"rerank"`
	WebSearch  WebSearch        `yaml:"websearch"`
	Answer     Answer           `yaml:"answer"`
	Cache      Cache            `yaml:"cache"`
	Resilience Resilience       `yaml:"resilience"`
	MCP        MCP              `yaml:"mcp"`
	Plugins    Plugins          `yaml:"plugins"`
	Auth       Auth             `yaml:"auth"`
	// Watch lists directories kept in sync continuously.
	Watch  []WatchEntry `yaml:"watch"`
	Log    Log          `yaml:"log"`
	Import Import       `yaml:"import"`
	// Telemetry configures OpenTelemetry tracing (off by default).
	Telemetry Telemetry `yaml:"telemetry"`
	// Sources bounds and schedules the sources kept in sync (POST /sources).
	Sources Sources `yaml:"sources"`
}

// Sources configures the sources kept in sync: their bounds, citations
// and schedules.
type Sources struct {
	// GitMaxRepoBytes refuses a sync whose clone takes more on disk.
	GitMaxRepoBytes int64 `yaml:"git_max_repo_bytes"`
	// GitMaxFiles refuses a sync of more files in scope.
	GitMaxFiles int `yaml:"git_max_files"`
	// GitWebURL is a git document's citation: {repo} the repository's
	// web address, {commit} and {path}; empty records none.
	GitWebURL string `yaml:"git_web_url"`
	// GitTimeout bounds one fetch.
	GitTimeout time.Duration `yaml:"git_timeout"`
	// GitCAFile is a PEM file of certificate authorities trusted, besides
	// the system's, by https git sources (a Git server with an internal
	// CA); empty: the system's alone.
	GitCAFile string `yaml:"git_ca_file"`
	// S3MaxObjects refuses an s3 sync of more objects under the prefix.
	S3MaxObjects int `yaml:"s3_max_objects"`
	// S3Timeout bounds an s3 source's listing, and each object read.
	S3Timeout time.Duration `yaml:"s3_timeout"`
	// MinEvery is the shortest schedule a source may have.
	MinEvery time.Duration `yaml:"min_every"`
	// ScheduleJitter is the most a scheduled sync is moved later by.
	ScheduleJitter time.Duration `yaml:"schedule_jitter"`
	// ScheduleTick is how often the scheduling replica looks for due
	// sources.
	ScheduleTick time.Duration `yaml:"schedule_tick"`
	// WebMaxPages refuses a web sync of a site with more pages in scope;
	// WebMaxDepth is how many links deep a crawl goes. Both are also the
	// caps of a source's own max_pages and max_depth.
	WebMaxPages int `yaml:"web_max_pages"`
	WebMaxDepth int `yaml:"web_max_depth"`
	// WebMaxPageBytes bounds one page (ingest.max_file_bytes too).
	WebMaxPageBytes int64 `yaml:"web_max_page_bytes"`
	// WebMaxTime bounds a whole crawl.
	WebMaxTime time.Duration `yaml:"web_max_time"`
	// WebConcurrency is how many requests a crawl has open at once on
	// its host; WebDelay the least time between their starts (0: none;
	// robots.txt's Crawl-delay when longer).
	WebConcurrency int           `yaml:"web_concurrency"`
	WebDelay       time.Duration `yaml:"web_delay"`
}

// Telemetry configures tracing: spans of requests, tool calls and jobs
// exported over OTLP.
type Telemetry struct {
	// OTLPEndpoint is the collector's OTLP base URL; empty turns tracing
	// off.
	OTLPEndpoint string `yaml:"otlp_endpoint"`
	// Protocol is http/protobuf or grpc.
	Protocol string `yaml:"protocol"`
	// ServiceName names this ragd in the traces.
	ServiceName string `yaml:"service_name"`
	// SampleRatio of new traces are recorded (0 to 1); a request that
	// brings a traceparent follows its caller's decision.
	SampleRatio float64 `yaml:"sample_ratio"`
	// Headers go with every export (a hosted collector's API key).
	Headers map[string]string `yaml:"headers"`
	// RecordQueries lets spans carry query text; off, no span carries a
	// query's or a document's text.
	RecordQueries bool `yaml:"record_queries"`
}

// Import configures POST /kb/{kb_name}/import.
type Import struct {
	// MaxBytes bounds an uploaded archive, which is stored under
	// <data.dir>/imports until its job ends.
	MaxBytes int64 `yaml:"max_bytes"`
}

// MCP configures the Model Context Protocol server.
type MCP struct {
	// Stateless serves every HTTP request without a session, so replicas
	// need no sticky sessions.
	Stateless bool `yaml:"stateless"`
	// WaitTimeout bounds a tool call with wait:true (below clients' 60 s).
	WaitTimeout time.Duration `yaml:"wait_timeout"`
}

// Auth configures who may call the REST API and /mcp.
type Auth struct {
	// Mode is disabled, static-token, jwt or oauth.
	Mode string `yaml:"mode"`
	// APIKey is one static bearer key allowed every namespace (handy from
	// the environment: RAGD_AUTH_API_KEY).
	APIKey string `yaml:"api_key"`
	// Keys are named static bearer keys, each optionally limited to namespaces.
	Keys []AuthKey `yaml:"keys"`
	// JWKSURL, Issuer and Audience verify JWTs in jwt mode.
	JWKSURL  string `yaml:"jwks_url"`
	Issuer   string `yaml:"issuer"`
	Audience string `yaml:"audience"`
	// Scopes every JWT must carry.
	Scopes []string `yaml:"scopes"`
	// NamespaceClaim lists a JWT's allowed namespaces (absent: all).
	NamespaceClaim string `yaml:"namespace_claim"`
	// GroupsClaim lists a JWT's groups, which decide the documents it
	// sees (default groups).
	GroupsClaim string `yaml:"groups_claim"`
	// ResourceURL is this server's public URL, advertised in the
	// protected-resource metadata (default: http://<http.addr>).
	ResourceURL string `yaml:"resource_url"`
	// AllowedOrigins may call from a browser besides same-host origins.
	AllowedOrigins []string `yaml:"allowed_origins"`
	// SessionTTL is how long a web-console login (its session cookie)
	// lasts; a JWT's session ends with the token.
	SessionTTL time.Duration `yaml:"session_ttl"`
	// OAuth makes ragd an authorization server signing people in upstream
	// (auth.mode oauth).
	OAuth AuthOAuth `yaml:"oauth"`
}

// AuthKey is one static bearer key.
type AuthKey struct {
	Name string `yaml:"name"`
	// Token is the key, or env:VAR to read it from the environment.
	Token      string   `yaml:"token"`
	Namespaces []string `yaml:"namespaces"`
	// Groups decide which documents the key sees: those shared with one
	// of them and open ones; "*" sees every document.
	Groups []string `yaml:"groups"`
	// Roots limit the files and directories the key may index to these,
	// each inside ingest.roots; empty: every ingest root.
	Roots []string `yaml:"roots"`
}

// WatchEntry is a directory kept in sync with a namespace: fsnotify
// events, debounced, become sync jobs; a full sync runs at start.
type WatchEntry struct {
	Path   string `yaml:"path"`
	KBName string `yaml:"kb_name"`
	// Recursive and Prune default to true.
	Recursive *bool `yaml:"recursive"`
	Prune     *bool `yaml:"prune"`
}

// Plugins declares namespaced MCP tools.
type Plugins struct {
	// DefaultNamespace's tools are listed and callable besides core_*.
	DefaultNamespace string       `yaml:"default_namespace"`
	Tools            []PluginTool `yaml:"tools"`
}

// PluginTool is one namespaced tool, {namespace}_{name}, bound to a core tool.
type PluginTool struct {
	Namespace   string   `yaml:"namespace"`
	Name        string   `yaml:"name"`
	Base        string   `yaml:"base"`
	Description string   `yaml:"description"`
	KBName      string   `yaml:"kb_name"`
	Tags        []string `yaml:"tags"`
	SourceTypes []string `yaml:"source_types"`
	DocumentIDs []string `yaml:"document_ids"`
}

// HTTP configures the REST/MCP server.
type HTTP struct {
	Addr         string        `yaml:"addr"`
	MaxBodyBytes int64         `yaml:"max_body_bytes"`
	WaitTimeout  time.Duration `yaml:"wait_timeout"`
	// MaxBatchCalls caps the calls of one JSON-RPC batch, at /mcp and at
	// POST / alike: each call may search or ingest.
	MaxBatchCalls int `yaml:"max_batch_calls"`
	// BodyTimeout bounds the reading of a whole request body; a body not
	// in by then is answered 408 and its connection closed.
	BodyTimeout time.Duration `yaml:"body_timeout"`
	// BodyIdleTimeout bounds each wait for more of an upload's (POST
	// /documents) or an archive's (POST /kb/{kb_name}/import) body
	// instead, which may take long in all but must keep moving.
	BodyIdleTimeout time.Duration `yaml:"body_idle_timeout"`
}

// Redis configures the queue broker and registry.
type Redis struct {
	URL       string `yaml:"url"`
	KeyPrefix string `yaml:"key_prefix"`
	// Sentinel, when set, finds the primary through Redis Sentinel
	// instead of redis.url (which must then be empty).
	Sentinel Sentinel `yaml:"sentinel"`
	// Cluster, when set, reaches a Redis Cluster instead (redis.url
	// empty, no sentinel).
	Cluster Cluster `yaml:"cluster"`
}

// Weaviate configures the vector store.
type Weaviate struct {
	URL      string `yaml:"url"`
	GRPCAddr string `yaml:"grpc_addr"`
	APIKey   string `yaml:"api_key"`
	// CAFile is a PEM bundle of certificates trusted, besides the
	// system's, for the nodes' TLS (REST and gRPC); empty: the system's.
	CAFile     string        `yaml:"ca_file"`
	Collection string        `yaml:"collection"`
	BatchSize  int           `yaml:"batch_size"`
	Timeout    time.Duration `yaml:"timeout"`
	// ReplicationFactor is the number of nodes holding each namespace,
	// applied when the collection is created.
	ReplicationFactor int `yaml:"replication_factor"`
	// Consistency is the level (ONE, QUORUM, ALL) of reads and writes when
	// ReplicationFactor > 1.
	Consistency string `yaml:"consistency"`
}

// Data locates ragd's own files (model tables).
type Data struct {
	Dir string `yaml:"dir"`
}

// Embed chooses and configures the embedder.
type Embed struct {
	Provider  string        `yaml:"provider"`
	ModelPath string        `yaml:"model_path"`
	BaseURL   string        `yaml:"base_url"`
	Model     string        `yaml:"model"`
	APIKey    string        `yaml:"api_key"`
	Dimension int           `yaml:"dimension"`
	BatchSize int           `yaml:"batch_size"`
	Timeout   time.Duration `yaml:"timeout"`
	// Concurrency bounds the batches a worker process embeds at once, over
	// all its jobs (requests to the API, or the in-process model's work).
	Concurrency int `yaml:"concurrency"`
}

// Ingest configures loaders and the chunker.
type Ingest struct {
	Roots             []string      `yaml:"roots"`
	AllowPrivateURLs  bool          `yaml:"allow_private_urls"`
	MaxFileBytes      int64         `yaml:"max_file_bytes"`
	URLTimeout        time.Duration `yaml:"url_timeout"`
	ChunkTokens       int           `yaml:"chunk_tokens"`
	ChunkOverlap      int           `yaml:"chunk_overlap"`
	MaxDirectoryFiles int           `yaml:"max_directory_files"`
	// MaxPages refuses a PDF with more pages, declared or found.
	MaxPages int `yaml:"max_pages"`
	// ParseConcurrency bounds the sources a worker process reads and
	// parses at once, over all its jobs.
	ParseConcurrency int `yaml:"parse_concurrency"`
	// ParseTimeout bounds the parse of one document; a PDF parse that
	// outlives it is killed and the document fails.
	ParseTimeout time.Duration `yaml:"parse_timeout"`
	// ParseMemoryBytes is the memory budget of the process that parses
	// one PDF.
	ParseMemoryBytes int64 `yaml:"parse_memory_bytes"`
	// RelatedWords stores with each chunk the words WordNet
	// (search.wordnet_dir) relates to its own, for search.related_weight.
	RelatedWords bool `yaml:"related_words"`
	// MaxUploadFiles caps the files of one POST /documents; the request
	// body may be MaxUploadFiles × MaxFileBytes plus 1 MiB of form.
	MaxUploadFiles int `yaml:"max_upload_files"`
	// OCR reads PDF pages without a text layer with tesseract: "auto"
	// when Debian's tesseract-ocr and poppler-utils are installed, "off"
	// never.
	OCR string `yaml:"ocr"`
	// OCRLanguages are tesseract's languages, joined by "+" ("eng+deu").
	OCRLanguages string `yaml:"ocr_languages"`
	// MaxDocumentChunks fails a document that would make more chunks
	// (the chunker stops as soon as it passes the bound).
	MaxDocumentChunks int `yaml:"max_document_chunks"`
	// MaxDocumentTextBytes fails a document with more extracted text, and
	// refuses inline text of more bytes (413).
	MaxDocumentTextBytes int64 `yaml:"max_document_text_bytes"`
	// MaxURLBytes refuses a longer URL to index (422).
	MaxURLBytes int `yaml:"max_url_bytes"`
}

// Worker configures the Asynq ingest worker.
type Worker struct {
	Concurrency int           `yaml:"concurrency"`
	Queue       string        `yaml:"queue"`
	MaxRetries  int           `yaml:"max_retries"`
	TaskTimeout time.Duration `yaml:"task_timeout"`
	// JobRetention is jobs.retention's earlier name, still read: set
	// alone, it sets jobs.retention (Load).
	JobRetention time.Duration `yaml:"job_retention"`
	// PollInterval is how often an idle worker looks for a new job: the
	// most a job waits in an empty queue before it starts.
	PollInterval time.Duration `yaml:"poll_interval"`
	// BatchWait is how long a job's chunk write waits for other jobs of
	// the process to share a Weaviate batch (of weaviate.batch_size); 0
	// writes each job's chunks alone.
	BatchWait time.Duration `yaml:"batch_wait"`
}

// Jobs configures the records of ingest jobs.
type Jobs struct {
	// Retention keeps a finished job readable (GET /jobs/{id}, the
	// listing, a directory's files) for this long after it ends; then its
	// records expire.
	Retention time.Duration `yaml:"retention"`
}

// Search configures retrieval.
type Search struct {
	Alpha float64 `yaml:"alpha"`
	// MMR re-ranks for diversity (maximal marginal relevance) when true.
	MMR       bool    `yaml:"mmr"`
	MMRLambda float64 `yaml:"mmr_lambda"`
	// RRFK is the k of reciprocal rank fusion across namespaces.
	RRFK int `yaml:"rrf_k"`
	// QueryCacheSize bounds the in-process cache of query embeddings.
	QueryCacheSize int `yaml:"query_cache_size"`
	// Fusion combines a hybrid query's BM25 and vector scores: "relative"
	// (min-max normalised scores) or "ranked" (reciprocal ranks).
	Fusion string `yaml:"fusion"`
	// PathBoost weighs the heading trail against the body in BM25.
	PathBoost float64 `yaml:"path_boost"`
	// StemExpansion adds the namespace's words sharing a stem with a query
	// word (reads → reader, reading).
	StemExpansion bool `yaml:"stem_expansion"`
	// NeighbourExpansion adds the namespace's words nearest to a query word
	// in the embedder's word space (GloVe only), at least
	// NeighbourMinSimilarity similar, NeighbourTerms per word.
	NeighbourExpansion     bool    `yaml:"neighbour_expansion"`
	NeighbourMinSimilarity float64 `yaml:"neighbour_min_similarity"`
	NeighbourTerms         int     `yaml:"neighbour_terms"`
	// SynonymExpansion adds the namespace's words that WordNet (Debian's
	// wordnet-base, in WordNetDir) gives as synonyms or derivations of a
	// query word in its first SynonymSenses senses per part of speech.
	SynonymExpansion bool `yaml:"synonym_expansion"`
	// KeywordSynonymExpansion expands keyword-mode searches with synonyms
	// even when SynonymExpansion is off. Off by default: it passed the
	// defaults rule over ragd's corpora but lost recall on a question set ragd
	// was not tuned on (docs/RETRIEVAL.md).
	KeywordSynonymExpansion bool   `yaml:"keyword_synonym_expansion"`
	SynonymSenses           int    `yaml:"synonym_senses"`
	WordNetDir              string `yaml:"wordnet_dir"`
	// RelatedWeight weighs the words WordNet relates to a chunk's own
	// (written at ingest when ingest.related_words is on) against its body
	// in BM25; 0 leaves them unsearched.
	RelatedWeight float64 `yaml:"related_weight"`
	// PRF (pseudo-relevance feedback) searches again with the distinctive
	// words of the first PRFDocs results added, PRFTerms of them.
	PRF      bool `yaml:"prf"`
	PRFDocs  int  `yaml:"prf_docs"`
	PRFTerms int  `yaml:"prf_terms"`
	// Rewrite asks the chat model (when configured) for a hypothetical
	// answer passage and adds its words to the query.
	Rewrite bool `yaml:"rewrite"`
}

// LLM configures the optional OpenAI-compatible chat model.
type LLM struct {
	BaseURL     string        `yaml:"base_url"`
	Model       string        `yaml:"model"`
	APIKey      string        `yaml:"api_key"`
	Timeout     time.Duration `yaml:"timeout"`
	Temperature float64       `yaml:"temperature"`
	MaxTokens   int           `yaml:"max_tokens"`
}

// Rerank configures the optional cross-encoder stage of searches: the
// fused top Candidates are reordered by a reranking server into top_k.
type Rerank struct {
	Enabled bool `yaml:"enabled"`
	// Format is the server's wire format: tei (text-embeddings-inference)
	// or cohere (Cohere v2, Jina, vLLM, llama.cpp server).
	Format  string        `yaml:"format"`
	BaseURL string        `yaml:"base_url"`
	Model   string        `yaml:"model"`
	APIKey  string        `yaml:"api_key"`
	Timeout time.Duration `yaml:"timeout"`
	// Candidates is how many fused hits are reranked (at least top_k).
	Candidates int `yaml:"candidates"`
}

// WebSearch configures the web-search provider of agentic answers and of
// the JSON-RPC search endpoint.
type WebSearch struct {
	// SerpAPIKey enables SerpAPI (Google results).
	SerpAPIKey string `yaml:"serpapi_key"`
	// SearXNGURL enables a self-hosted SearXNG instance (preferred when set).
	SearXNGURL string        `yaml:"searxng_url"`
	Timeout    time.Duration `yaml:"timeout"`
}

// Answer configures rag_query answers.
type Answer struct {
	// MinScore is the similarity the best passage must reach for an answer
	// to be attempted; below it the answer says the documents lack it.
	MinScore float64 `yaml:"min_score"`
	// MaxSentences bounds an extractive answer.
	MaxSentences int `yaml:"max_sentences"`
	// AgentMaxSteps bounds the tool-calling rounds of an agentic answer.
	AgentMaxSteps int `yaml:"agent_max_steps"`
	// Candidates, when 2 or more, ranks that many candidate answers made
	// from different subsets of the passages and keeps the best.
	Candidates int `yaml:"candidates"`
}

// Cache configures the Redis result cache.
type Cache struct {
	Enabled bool          `yaml:"enabled"`
	TTL     time.Duration `yaml:"ttl"`
}

// Resilience configures the breakers and retries of dependency calls. Each
// attempt's timeout is the dependency's own (weaviate.timeout,
// embed.timeout, llm.timeout, websearch.timeout, rerank.timeout).
type Resilience struct {
	// ToolTimeout is no longer used: it stacked a second timeout on each
	// dependency's own. It is still read, so configs that set it load, and
	// a value above 0 is warned about at start-up.
	ToolTimeout          time.Duration `yaml:"tool_timeout"`
	MaxRetries           int           `yaml:"max_retries"`
	CircuitFailThreshold int           `yaml:"circuit_fail_threshold"`
	CircuitOpenFor       time.Duration `yaml:"circuit_open_for"`
}

// Log configures logging.
type Log struct {
	Level  string `yaml:"level"`
	Format string `yaml:"format"`
}

// Default returns the built-in defaults; config.yaml documents each of them.
func Default() Config {
	return Config{
		HTTP: HTTP{Addr: "127.0.0.1:8000", MaxBodyBytes: 10 << 20, WaitTimeout: 50 * time.Second, MaxBatchCalls: 50, BodyTimeout: time.Minute, BodyIdleTimeout: time.Minute},
		Redis: Redis{URL: "redis://127.0.0.1:6379/0", KeyPrefix: "ragd", Sentinel: Sentinel{Addrs: []string{}, WaitReplicas: 1, WaitTimeout: time.Second, FailoverWait: 15 * time.Second},
			Cluster: Cluster{Addrs: []string{}, WaitReplicas: 1, WaitTimeout: time.Second, FailoverWait: 15 * time.Second}},
		Weaviate:  Weaviate{URL: "http://127.0.0.1:8080", GRPCAddr: "127.0.0.1:50051", Collection: "RagdChunk", BatchSize: 200, Timeout: 30 * time.Second, ReplicationFactor: 1, Consistency: "QUORUM"},
		Data:      Data{Dir: "./data"},
		Embed:     Embed{Provider: "glove", BatchSize: 64, Timeout: 30 * time.Second, Concurrency: 4},
		Embedders: map[string]Embed{},
		Ingest: Ingest{Roots: []string{"."}, MaxFileBytes: 50 << 20, URLTimeout: 30 * time.Second,
			ChunkTokens: 384, ChunkOverlap: 32, MaxDirectoryFiles: 10000,
			MaxPages: 5000, ParseConcurrency: 4, ParseTimeout: 2 * time.Minute, ParseMemoryBytes: 1 << 30, MaxUploadFiles: 10, OCR: "auto", OCRLanguages: "eng",
			MaxDocumentChunks: 20000, MaxDocumentTextBytes: 64 << 20, MaxURLBytes: 8192},
		Worker: Worker{Concurrency: 32, Queue: "ragd", MaxRetries: 3, TaskTimeout: 30 * time.Minute,
			PollInterval: 100 * time.Millisecond, BatchWait: 20 * time.Millisecond},
		Jobs: Jobs{Retention: 24 * time.Hour},
		Search: Search{Alpha: 0.3, MMRLambda: 0.7, RRFK: 60, QueryCacheSize: 4096, Fusion: "relative", PathBoost: 1, StemExpansion: false, NeighbourMinSimilarity: 0.6, NeighbourTerms: 3,
			SynonymExpansion: false, KeywordSynonymExpansion: false, SynonymSenses: 1, WordNetDir: "/usr/share/wordnet", PRFDocs: 3, PRFTerms: 10},
		LLM:        LLM{Timeout: 60 * time.Second, Temperature: 0.1, MaxTokens: 800},
		Rerank:     Rerank{Format: "tei", Timeout: 5 * time.Second, Candidates: 30},
		Answer:     Answer{MinScore: 0.5, MaxSentences: 4, AgentMaxSteps: 4},
		WebSearch:  WebSearch{Timeout: 15 * time.Second},
		Cache:      Cache{Enabled: true, TTL: 300 * time.Second},
		MCP:        MCP{Stateless: true, WaitTimeout: 45 * time.Second},
		Plugins:    Plugins{Tools: []PluginTool{}},
		Auth:       Auth{Mode: "disabled", Keys: []AuthKey{}, Scopes: []string{}, NamespaceClaim: "kb_names", GroupsClaim: "groups", AllowedOrigins: []string{}, SessionTTL: 12 * time.Hour, OAuth: defaultOAuth()},
		Watch:      []WatchEntry{},
		Resilience: Resilience{MaxRetries: 3, CircuitFailThreshold: 5, CircuitOpenFor: 30 * time.Second},
		Log:        Log{Level: "info", Format: "text"},
		Import:     Import{MaxBytes: 4 << 30},
		Telemetry:  Telemetry{Protocol: "http/protobuf", ServiceName: "ragd", SampleRatio: 1, Headers: map[string]string{}},
		Sources: Sources{GitMaxRepoBytes: 1 << 30, GitMaxFiles: 10000, GitWebURL: "{repo}/blob/{commit}/{path}",
			GitTimeout: 5 * time.Minute, S3MaxObjects: 10000, S3Timeout: 5 * time.Minute, MinEvery: 5 * time.Minute, ScheduleJitter: time.Minute, ScheduleTick: 30 * time.Second,
			WebMaxPages: 500, WebMaxDepth: 10, WebMaxPageBytes: 10 << 20, WebMaxTime: 15 * time.Minute, WebConcurrency: 2, WebDelay: 100 * time.Millisecond},
	}
}

// GloVePath is where the default embedder's table lives unless
// embed.model_path names another file.
func (c Config) GloVePath() string {
	if c.Embed.ModelPath != "" {
		return c.Embed.ModelPath
	}
	return c.Data.Dir + "/models/glove-sif-100d.bin"
}
