package pdftext

import (
	"context"
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
)

func readFixture(t *testing.T, p string) []byte { return testenv.ReadFile(t, p) }

func storyPDFs(t *testing.T) []string { return parsetest.StoryPDFs(t) }

// parse reads a PDF as ingest.Parse does: with the default limits and
// no pictures.
func parse(data []byte, name string) (*document.Loaded, error) {
	return Parser{}.Parse(context.Background(), data, name)
}

// assertBlocks compares a loader's blocks with the expected ones, block by block.
func assertBlocks(t *testing.T, got, want []document.Block) {
	t.Helper()
	parsetest.AssertBlocks(t, got, want)
}

func assertParseError(t *testing.T, err error) *document.ParseError {
	t.Helper()
	return parsetest.AssertParseError(t, err)
}

func imgWantParseError(t *testing.T, what string, imgs []document.Image, err error, typ ragd.SourceType) {
	t.Helper()
	parsetest.WantImagesParseError(t, what, imgs, err, typ)
}
