package document

import (
	"testing"

	"ragd"
)

func TestParseErrorMessage(t *testing.T) {
	err := Errorf("x.pdf", ragd.SourcePDF, "no extractable text")
	if got := err.Error(); got != `cannot read PDF "x.pdf": no extractable text` {
		t.Errorf("message = %q", got)
	}
}
