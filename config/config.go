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
	Ingest   Ingest   `yaml:"ingest"`
	Worker   Worker   `yaml:"worker"`
	Search   Search   `yaml:"search"`
	Log      Log      `yaml:"log"`
}

// HTTP configures the REST/MCP server.
type HTTP struct {
	Addr         string        `yaml:"addr"`
	MaxBodyBytes int64         `yaml:"max_body_bytes"`
	WaitTimeout  time.Duration `yaml:"wait_timeout"`
}

// Redis configures the queue broker and registry.
type Redis struct {
	URL       string `yaml:"url"`
	KeyPrefix string `yaml:"key_prefix"`
}

// Weaviate configures the vector store.
type Weaviate struct {
	URL        string        `yaml:"url"`
	GRPCAddr   string        `yaml:"grpc_addr"`
	APIKey     string        `yaml:"api_key"`
	Collection string        `yaml:"collection"`
	BatchSize  int           `yaml:"batch_size"`
	Timeout    time.Duration `yaml:"timeout"`
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
}

// Worker configures the Asynq ingest worker.
type Worker struct {
	Concurrency  int           `yaml:"concurrency"`
	Queue        string        `yaml:"queue"`
	MaxRetries   int           `yaml:"max_retries"`
	TaskTimeout  time.Duration `yaml:"task_timeout"`
	JobRetention time.Duration `yaml:"job_retention"`
}

// Search configures retrieval.
type Search struct {
	Alpha float64 `yaml:"alpha"`
}

// Log configures logging.
type Log struct {
	Level  string `yaml:"level"`
	Format string `yaml:"format"`
}

// Default returns the built-in defaults; config.yaml documents each of them.
func Default() Config {
	return Config{
		HTTP:     HTTP{Addr: "127.0.0.1:8000", MaxBodyBytes: 10 << 20, WaitTimeout: 50 * time.Second},
		Redis:    Redis{URL: "redis://127.0.0.1:6379/0", KeyPrefix: "ragd"},
		Weaviate: Weaviate{URL: "http://127.0.0.1:8080", GRPCAddr: "127.0.0.1:50051", Collection: "RagdChunk", BatchSize: 200, Timeout: 30 * time.Second},
		Data:     Data{Dir: "./data"},
		Embed:    Embed{Provider: "glove", BatchSize: 64, Timeout: 30 * time.Second},
		Ingest: Ingest{Roots: []string{"."}, MaxFileBytes: 50 << 20, URLTimeout: 30 * time.Second,
			ChunkTokens: 256, ChunkOverlap: 32, MaxDirectoryFiles: 10000},
		Worker: Worker{Concurrency: 4, Queue: "ragd", MaxRetries: 3, TaskTimeout: 30 * time.Minute, JobRetention: 24 * time.Hour},
		Search: Search{Alpha: 0.3},
		Log:    Log{Level: "info", Format: "text"},
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
