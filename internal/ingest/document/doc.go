// Package document is the parsed form of a source that every format's
// reader produces: blocks in reading order, the pictures, the title, and
// the *ParseError a document that cannot be read gives. Finish gives every
// reader's output the same treatment of spacing, line endings and titles,
// so a document's NormalizedText (its content hash) does not depend on
// which reader produced it.
package document
