package ingest

import (
	"testing"

	"ragd/internal/ingest/document"
	"ragd/internal/testkit/parsetest"
	"ragd/internal/testkit/testenv"
)

func moduleFile(t *testing.T, modVersion, rel string) string {
	return testenv.ModuleFile(t, modVersion, rel)
}

func gorootFile(t *testing.T, rel string) string { return testenv.GorootFile(t, rel) }

const pdfModule = testenv.PDFModule

func readFixture(t *testing.T, p string) []byte { return testenv.ReadFile(t, p) }

// assertBlocks compares a loader's blocks with the expected ones, block by block.
func assertBlocks(t *testing.T, got, want []document.Block) {
	t.Helper()
	parsetest.AssertBlocks(t, got, want)
}
