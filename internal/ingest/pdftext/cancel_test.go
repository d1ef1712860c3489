package pdftext_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"ragd"
	"ragd/internal/ingest"
	"ragd/internal/testkit/testenv"
)

// TestPDFCancelledParseIsNotPermanent: the caller's own cancellation is not
// the file's fault, so ingest must not call it permanent. It asks ingest's
// IsPermanent, which is why it sits outside the package.
func TestPDFCancelledParseIsNotPermanent(t *testing.T) {
	data := testenv.SlowPDF(128)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(200 * time.Millisecond); cancel() }()
	_, err := ingest.Parser{}.Parse(ctx, data, ragd.SourcePDF, "slow.pdf")
	if !errors.Is(err, context.Canceled) || ingest.IsPermanent(err) {
		t.Errorf("cancelled parse: %v", err)
	}
}
