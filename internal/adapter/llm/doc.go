// Package llm is a small client for OpenAI-compatible chat-completions
// endpoints (OpenAI, Ollama, vLLM, llama.cpp server): plain and streamed
// completions with function calling. It speaks only the wire format; retries,
// breakers and prompt building belong to its callers.
package llm
