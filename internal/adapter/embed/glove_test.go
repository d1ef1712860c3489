package embed

import (
	"context"
	"errors"
	"math"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"ragd"
	"ragd/internal/testkit/testenv"
)

var _ ragd.Embedder = (*GloVe)(nil)

// TestGloVeReal runs every check that needs the real table (the one the
// install script converted: make test names it) as subtests. Conversion
// itself is checked against its input in glove_convert_test.go.
func TestGloVeReal(t *testing.T) {
	path := testenv.GloVePath(t)
	heapBefore := heapAlloc()
	start := time.Now()
	g, err := LoadGloVe(path)
	if err != nil {
		t.Fatal(err)
	}
	loadTime := time.Since(start)
	heap := heapAlloc() - heapBefore
	t.Logf("loaded %d words in %s; heap after load %.1f MB", g.Words(), loadTime.Round(time.Millisecond), float64(heap)/(1<<20))
	if heap > 150<<20 {
		t.Errorf("loaded table takes %d MB of heap, want well under 300 MB", heap>>20)
	}
	if g.Name() != "glove-sif-100d" || g.Dimension() != 100 {
		t.Fatalf("Name %q Dimension %d", g.Name(), g.Dimension())
	}
	ctx := context.Background()
	embed := func(texts ...string) [][]float32 {
		t.Helper()
		v, err := g.Embed(ctx, texts)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}

	t.Run("Similarity", func(t *testing.T) {
		v := embed("how do I reset my password", "I forgot my login credentials", "chocolate cake recipe with cookies")
		related, unrelated := dot(v[0], v[1]), dot(v[0], v[2])
		t.Logf("password/login %.3f, password/cake %.3f", related, unrelated)
		if related < unrelated+0.15 {
			t.Errorf("related %.3f not clearly above unrelated %.3f", related, unrelated)
		}
	})

	t.Run("UnitAndDeterministic", func(t *testing.T) {
		texts := []string{"The kitten slept on the rug.", "Don't panic: it's well-known!", "", "12345 67890", "zzqxj qqvvk"}
		first := embed(texts...)
		// Concurrent calls must agree with a serial one (and pass -race).
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				again, err := g.Embed(ctx, texts)
				if err != nil {
					t.Error(err)
					return
				}
				for i := range texts {
					if !slices.Equal(first[i], again[i]) {
						t.Errorf("%q: embedding changed between calls", texts[i])
					}
				}
			})
		}
		wg.Wait()
		for i, v := range first {
			if len(v) != 100 || math.Abs(dot(v, v)-1) > 1e-5 {
				t.Errorf("%q: len %d, squared norm %v", texts[i], len(v), dot(v, v))
			}
		}
	})

	t.Run("UnknownWordsOnly", func(t *testing.T) {
		v := embed("12345 67890", "zzqxj qqvvk", "zzqxj qqvvk")
		if math.Abs(dot(v[0], v[0])-1) > 1e-5 {
			t.Fatalf("squared norm %v, want 1", dot(v[0], v[0]))
		}
		if !slices.Equal(v[1], v[2]) || slices.Equal(v[0], v[1]) {
			t.Error("hash vectors must be equal for equal texts and differ otherwise")
		}
	})

	t.Run("Contractions", func(t *testing.T) {
		v := embed("don't", "do not", "dont")
		if dot(v[0], v[1]) < 0.999 {
			t.Errorf(`"don't" vs "do not": %.3f`, dot(v[0], v[1]))
		}
	})

	t.Run("Neighbours", func(t *testing.T) {
		n := g.Neighbours("King", 10)
		t.Logf("neighbours of king: %v", n)
		if len(n) != 10 || (!slices.Contains(n, "queen") && !slices.Contains(n, "prince")) {
			t.Errorf("neighbours of king = %v", n)
		}
		if slices.Contains(n, "king") {
			t.Error("a word is not its own neighbour")
		}
		if g.Neighbours("zzqxjunknown", 5) != nil {
			t.Error("unknown word has neighbours")
		}
	})

	t.Run("Cancel", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := g.Embed(cctx, []string{"a"}); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
	runtime.KeepAlive(g)
}

// heapAlloc is the live heap after a full collection.
func heapAlloc() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func BenchmarkLoadGloVe(b *testing.B) {
	path := testenv.GloVePath(b)
	var heap uint64
	for b.Loop() {
		before := heapAlloc()
		g, err := LoadGloVe(path)
		if err != nil {
			b.Fatal(err)
		}
		heap = heapAlloc() - before
		runtime.KeepAlive(g)
	}
	b.ReportMetric(float64(heap)/(1<<20), "heap-MB")
}

func BenchmarkGloVeEmbed(b *testing.B) {
	g, err := LoadGloVe(testenv.GloVePath(b))
	if err != nil {
		b.Fatal(err)
	}
	// A typical chunk: ~100 words of prose.
	text := "The garbage collector reclaims memory that is no longer reachable. " +
		"Programs allocate objects on the heap, and the runtime decides when to run a collection " +
		"based on the GOGC setting, which controls how much the heap may grow before the next cycle. " +
		"Lowering it trades CPU time for a smaller peak footprint; raising it does the reverse. " +
		"Finalizers run after an object becomes unreachable, but their timing is not guaranteed."
	b.SetBytes(int64(len(text)))
	ctx := context.Background()
	for b.Loop() {
		if _, err := g.Embed(ctx, []string{text}); err != nil {
			b.Fatal(err)
		}
	}
}
