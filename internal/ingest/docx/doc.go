// Package docx reads Word documents (Office Open XML): the text of the
// main part as blocks (headings by paragraph style, list items, table
// rows) and the pictures with their captions and nearby text, in one
// streaming pass whose memory and work are bounded whatever the file
// claims (limits.go).
package docx
