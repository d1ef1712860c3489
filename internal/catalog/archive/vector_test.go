package archive

import (
	"encoding/json"
	"math"
	"testing"
)

// parseVector never panics, and reads what encoding/json reads into a
// []float32 bit for bit wherever both accept; it refuses what
// encoding/json would let through as a zero (null elements).
func FuzzParseVector(f *testing.F) {
	for _, s := range []string{`[0.1,-0.2,0.33333334]`, `[]`, `null`, `[null,1]`, `[1e39]`, `["1"]`, ` [ 1 , 2 ] `, `[-0,1E-45,3.4028235e38]`, `{}`, `[[1]]`} {
		f.Add([]byte(s), 3)
	}
	f.Fuzz(func(t *testing.T, raw []byte, dim int) {
		if !json.Valid(raw) || dim < 0 || dim > 1<<12 {
			return // the decoder hands parseVector valid JSON only, with the header's dimension
		}
		got, err := parseVector(raw, dim)
		var want []float32
		jerr := json.Unmarshal(raw, &want)
		if err != nil || jerr != nil || len(want) > dim {
			return
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d numbers, encoding/json reads %d", raw, len(got), len(want))
		}
		for i := range got {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%s: element %d is %v, encoding/json reads %v", raw, i, got[i], want[i])
			}
		}
	})
}
