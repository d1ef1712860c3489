// Package ingest turns sources into retrievable pieces: it reads files
// inside the roots, URLs, inline text and uploads (through the checks of
// package guard), hands each to its format's reader (plain text, Markdown
// and HTML here; DOCX and PDF in packages docx and pdftext) for structured
// blocks, and chunks them along their headings; it also walks directories
// (with .gitignore and .ragdignore rules) and writes URLs canonically.
package ingest
