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

// assertBlocks compares a loader's blocks with the expected ones, block by block.
func assertBlocks(t *testing.T, got, want []Block) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("blocks:\n got %+v\nwant %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("block %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}
