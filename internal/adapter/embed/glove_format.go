package embed

import "math"

// The GloVe table is a little-endian binary file:
//
//	magic  "RAGDGLV1"
//	uint32 dims
//	uint32 count
//	count × (uvarint length, UTF-8 bytes)   words in frequency-rank order
//	count × (float32 scale, dims × int8)    rows in the same order
//
// Rows are quantized symmetrically per row (value ≈ scale × int8), which keeps
// the full 341k-word table near 35 MB on disk and in memory, and the error far
// below what changes a sentence embedding.

// gloveMagic opens every table so a wrong or stale file is refused at once.
const gloveMagic = "RAGDGLV1"

// gloveHeaderSize is the magic plus the two uint32 header fields.
const gloveHeaderSize = len(gloveMagic) + 4 + 4

// maxGloVeDims bounds the header so a corrupt file cannot ask for absurd rows.
const maxGloVeDims = 1 << 16

// quantizeRow writes v as int8 values into q and returns the scale such that
// v[i] ≈ scale*q[i]. A zero row gets scale 0.
func quantizeRow(v []float32, q []int8) float32 {
	var maxAbs float32
	for _, x := range v {
		if a := float32(math.Abs(float64(x))); a > maxAbs {
			maxAbs = a
		}
	}
	if maxAbs == 0 {
		clear(q)
		return 0
	}
	scale := maxAbs / 127
	inv := 1 / scale
	for i, x := range v {
		r := math.Round(float64(x * inv))
		q[i] = int8(max(-127, min(127, r)))
	}
	return scale
}
