package embed

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"sync"

	"ragd/internal/adapter/wordindex"
)

// DefaultSIFA is the SIF smoothing constant a: words far more frequent than a
// (the, of, punctuation) get weights near zero, rarer words near one.
const DefaultSIFA = 1e-3

// eulerGamma turns ln(N) into the harmonic number H_N ≈ ln N + γ that
// normalizes the Zipf estimate of word probabilities.
const eulerGamma = 0.5772156649

// GloVe is the offline default embedder: the SIF-weighted mean of GloVe word
// vectors (Arora et al., 2017, without the common-component removal, which
// needs a corpus), L2-normalized. It runs in-process with no network. A loaded
// GloVe is read-only and safe for concurrent use.
type GloVe struct {
	// A is the SIF constant a in the weight a/(a+p(w)); LoadGloVe sets
	// DefaultSIFA. Change it only before the embedder is shared: vectors made
	// with different values do not mix.
	A float64

	dims     int
	words    *wordindex.Index // by frequency rank
	rows     []byte           // len(words) × (float32 scale, dims × int8)
	harmonic float64          // H_N for the Zipf estimate

	normsOnce sync.Once
	norms     []float32 // int8 row norms of the neighbour vocabulary
}

// LoadGloVe reads a table written by ConvertGloVe. The file is read once and
// its rows are kept quantized, so the full 341k-word table costs about 70 MB.
// A missing file yields an error wrapping fs.ErrNotExist.
func LoadGloVe(path string) (*GloVe, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("glove table: %w", err)
	}
	g, err := parseGloVe(data)
	if err != nil {
		return nil, fmt.Errorf("glove table %s: %w", path, err)
	}
	return g, nil
}

// parseGloVe decodes the layout documented in glove_format.go. The rows alias
// data rather than being copied.
func parseGloVe(data []byte) (*GloVe, error) {
	if len(data) < gloveHeaderSize || string(data[:len(gloveMagic)]) != gloveMagic {
		return nil, errors.New("not a ragd GloVe table (bad magic)")
	}
	dims := int(binary.LittleEndian.Uint32(data[len(gloveMagic):]))
	count := int(binary.LittleEndian.Uint32(data[len(gloveMagic)+4:]))
	if dims <= 0 || dims > maxGloVeDims {
		return nil, fmt.Errorf("bad dimension %d", dims)
	}
	rowSize := 4 + dims
	if count <= 0 || count > (len(data)-gloveHeaderSize)/rowSize {
		return nil, fmt.Errorf("bad word count %d for a %d-byte file", count, len(data))
	}
	// First pass: validate the word list and find where it ends, so all words
	// can share one string instead of 341k small allocations.
	off := gloveHeaderSize
	for i := range count {
		n, k := binary.Uvarint(data[off:])
		if k <= 0 || n > uint64(len(data)-off-k) {
			return nil, fmt.Errorf("truncated word list at word %d", i)
		}
		off += k + int(n)
	}
	if len(data)-off != count*rowSize {
		return nil, fmt.Errorf("rows take %d bytes, want %d", len(data)-off, count*rowSize)
	}
	// One string of the words without their length prefixes, and their
	// offsets: no pointer per word for the garbage collector to follow.
	var text strings.Builder
	text.Grow(off - gloveHeaderSize)
	offs := make([]uint32, 0, count+1)
	for i, pos := 0, gloveHeaderSize; i < count; i++ {
		n, k := binary.Uvarint(data[pos:])
		offs = append(offs, uint32(text.Len()))
		text.Write(data[pos+k : pos+k+int(n)])
		pos += k + int(n)
	}
	offs = append(offs, uint32(text.Len()))
	g := &GloVe{
		A:        DefaultSIFA,
		dims:     dims,
		words:    wordindex.New(text.String(), offs),
		rows:     data[off:],
		harmonic: math.Log(float64(count)) + eulerGamma,
	}
	return g, nil
}

// row returns the scale and int8 values of the word of rank r.
func (g *GloVe) row(r int32) (float32, []byte) {
	size := 4 + g.dims
	b := g.rows[int(r)*size : (int(r)+1)*size]
	return math.Float32frombits(binary.LittleEndian.Uint32(b)), b[4:]
}

// Vector returns the (dequantized) vector of word, or nil if the table lacks it.
func (g *GloVe) Vector(word string) []float32 {
	r, ok := g.words.Lookup(word)
	if !ok {
		return nil
	}
	scale, q := g.row(r)
	v := make([]float32, g.dims)
	for i, b := range q {
		v[i] = scale * float32(int8(b))
	}
	return v
}

// Words is the size of the vocabulary.
func (g *GloVe) Words() int { return g.words.Len() }
