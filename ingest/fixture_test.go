package ingest

import (
	"os"
	"testing"

	"ragd/internal/testenv"
)

func moduleFile(t *testing.T, modVersion, rel string) string {
	return testenv.ModuleFile(t, modVersion, rel)
}

func gorootFile(t *testing.T, rel string) string { return testenv.GorootFile(t, rel) }

const pdfModule = testenv.PDFModule

func readFixture(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
