package docx

import (
	"testing"

	"ragd"
	"ragd/internal/ingest/document"
	"ragd/internal/testkit/parsetest"
	"ragd/internal/testkit/testenv"
)

func moduleFile(t *testing.T, modVersion, rel string) string {
	return testenv.ModuleFile(t, modVersion, rel)
}

const (
	pdfModule     = testenv.PDFModule
	imgFitzModule = parsetest.FitzModule
	storySentence = parsetest.StorySentence
)

func readFixture(t *testing.T, p string) []byte { return testenv.ReadFile(t, p) }

func assertParseError(t *testing.T, err error) *document.ParseError {
	t.Helper()
	return parsetest.AssertParseError(t, err)
}

func imgWantParseError(t *testing.T, what string, imgs []document.Image, err error, typ ragd.SourceType) {
	t.Helper()
	parsetest.WantImagesParseError(t, what, imgs, err, typ)
}

// assertBlocks compares a loader's blocks with the expected ones, block by block.
func assertBlocks(t *testing.T, got, want []document.Block) {
	t.Helper()
	parsetest.AssertBlocks(t, got, want)
}
