// Package ingest turns sources into retrievable pieces: it loads files and
// URLs (PDF, DOCX, HTML, Markdown, plain text) into structured blocks, chunks
// them along their headings, confines file paths to the configured roots and
// fetches URLs without letting a request reach a private address.
package ingest
