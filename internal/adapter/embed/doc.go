// Package embed holds ragd's embedders: an offline GloVe SIF embedder that runs
// in-process from a compact table converted once at install time, and an HTTP
// embedder for OpenAI-compatible APIs (OpenAI, Ollama, vLLM, …). Both implement
// ragd.Embedder.
package embed
