package pdftext

import "time"

// Limits bound the parsing of one document whatever the file claims.
type Limits struct {
	// MaxPages refuses PDFs with more pages (declared or found).
	MaxPages int
	// Timeout bounds the whole parse of a PDF, text and pictures.
	Timeout time.Duration
	// MemoryBytes is the memory budget of the process that parses a PDF.
	MemoryBytes int64
}

// The default Limits, used for zero fields.
const (
	DefaultMaxPages     = 5000
	DefaultParseTimeout = 2 * time.Minute
	DefaultParseMemory  = 1 << 30
)

func (l Limits) withDefaults() Limits {
	if l.MaxPages <= 0 {
		l.MaxPages = DefaultMaxPages
	}
	if l.Timeout <= 0 {
		l.Timeout = DefaultParseTimeout
	}
	if l.MemoryBytes <= 0 {
		l.MemoryBytes = DefaultParseMemory
	}
	return l
}
