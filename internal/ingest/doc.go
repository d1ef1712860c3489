// Package ingest turns sources into retrievable pieces: it reads files
// inside the roots, URLs, inline text and uploads (through the checks of
// package guard), hands each to its format's reader (plain text, Markdown
// and HTML here; DOCX and PDF in packages docx and pdf) for structured
// blocks, and chunks them along their headings.
package ingest
