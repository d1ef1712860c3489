package embed

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
)

// normalize scales v to unit length in place. It reports false, leaving v
// unchanged, when v is zero or not finite and so has no direction.
func normalize(v []float32) bool {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 || math.IsInf(sum, 0) || math.IsNaN(sum) {
		return false
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= inv
	}
	return true
}

// hashVector is the embedding of a text with no known word: a unit vector
// derived from the text's hash. It is deterministic (the same text always maps
// to the same point, so exact repeats still match) and never zero, because
// cosine similarity with a zero vector is undefined.
func hashVector(text string, dims int) []float32 {
	sum := sha256.Sum256([]byte(text))
	state := binary.LittleEndian.Uint64(sum[:8])
	v := make([]float32, dims)
	for {
		for i := range v {
			v[i] = float32(int64(splitmix64(&state))) / (1 << 63)
		}
		if normalize(v) {
			return v
		}
	}
}

// splitmix64 is a tiny fixed PRNG: written out here so hash vectors never
// change with a library's generator.
func splitmix64(s *uint64) uint64 {
	*s += 0x9e3779b97f4a7c15
	z := *s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
