package embed

import (
	"context"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGloVeTinyTable checks loading and SIF weighting without the real data,
// so it runs everywhere.
func TestGloVeTinyTable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tiny.bin")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ConvertGloVe(strings.NewReader(tinyGloVeJSON), f, 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	g, err := LoadGloVe(path)
	if err != nil {
		t.Fatal(err)
	}
	if g.Name() != "glove-sif-4d" || g.Dimension() != 4 || g.Words() != 3 {
		t.Fatalf("Name %q Dimension %d Words %d", g.Name(), g.Dimension(), g.Words())
	}
	v, err := g.Embed(context.Background(), []string{"The CAT!", "cat", "dog", "zero"})
	if err != nil {
		t.Fatal(err)
	}
	// Expected: weights a/(a+p(r)) with p(r) = 1/((r+1)·H), H = ln 3 + γ.
	h := math.Log(3) + eulerGamma
	w := func(r int) float32 { return float32(1e-3 / (1e-3 + 1/(float64(r+1)*h))) }
	the, cat := g.Vector("the"), g.Vector("cat")
	want := make([]float32, 4)
	for i := range want {
		want[i] = w(0)*the[i] + w(1)*cat[i]
	}
	normalize(want)
	for i := range want {
		if math.Abs(float64(v[0][i]-want[i])) > 1e-5 {
			t.Fatalf("SIF mean = %v, want %v", v[0], want)
		}
	}
	// "dog" is unknown and "zero" has a zero row: both fall back to a hash
	// vector, which is still a unit vector.
	for _, u := range v[2:] {
		if math.Abs(dot(u, u)-1) > 1e-5 {
			t.Errorf("fallback vector %v is not unit", u)
		}
	}
	if n := g.Neighbours("the", 5); len(n) != 1 || n[0] != "cat" {
		t.Errorf("Neighbours(the) = %v, want [cat] (zero rows have no direction)", n)
	}
}

func TestLoadGloVeMissing(t *testing.T) {
	_, err := LoadGloVe(filepath.Join(t.TempDir(), "nope.bin"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err = %v, want fs.ErrNotExist", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.bin")
	os.WriteFile(bad, []byte("not a table"), 0o644)
	if _, err := LoadGloVe(bad); err == nil || !strings.Contains(err.Error(), "magic") {
		t.Fatalf("err = %v, want bad magic", err)
	}
}
