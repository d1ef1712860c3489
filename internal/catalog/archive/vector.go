package archive

import (
	"fmt"
	"math"
	"strconv"
)

// parseVector reads a vector's JSON array of at most dim numbers.
// encoding/json would read a null element as 0, and so a vector the
// embedder never made as a valid one; here every element must be a
// number that is a finite float32. raw is valid JSON (the decoder checked
// the whole record), so only the array's own shape is looked at. A
// missing or null vector is empty, for the caller's length check.
func parseVector(raw []byte, dim int) ([]float32, error) {
	s := skipSpace(raw)
	if len(s) == 0 || string(s) == "null" {
		return nil, nil
	}
	if s[0] != '[' {
		return nil, fmt.Errorf("the vector is not an array")
	}
	s = skipSpace(s[1:])
	out := make([]float32, 0, dim)
	if len(s) > 0 && s[0] == ']' {
		return out, nil
	}
	for i := 0; ; i++ {
		n := numberLen(s)
		switch {
		case n == 0 && len(s) >= 4 && string(s[:4]) == "null":
			return nil, fmt.Errorf("vector element %d is null", i)
		case n == 0:
			return nil, fmt.Errorf("vector element %d is not a number", i)
		case i == dim:
			return nil, fmt.Errorf("the vector has more than %d numbers: not the header's dimension %d", dim, dim)
		}
		// As encoding/json reads a float32, so vectors read back bit for bit.
		f, err := strconv.ParseFloat(string(s[:n]), 32)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, fmt.Errorf("vector element %d (%s) is not a finite float32", i, Clip(string(s[:n])))
		}
		out = append(out, float32(f))
		s = skipSpace(s[n:])
		switch {
		case len(s) > 0 && s[0] == ',':
			s = skipSpace(s[1:])
		case len(s) > 0 && s[0] == ']':
			return out, nil
		default:
			return nil, fmt.Errorf("vector element %d is not followed by , or ]", i)
		}
	}
}

// numberLen is the length of the JSON number s starts with, 0 if none.
func numberLen(s []byte) int {
	n := 0
	for n < len(s) && (s[n] >= '0' && s[n] <= '9' || s[n] == '-' || s[n] == '+' || s[n] == '.' || s[n] == 'e' || s[n] == 'E') {
		n++
	}
	return n
}

func skipSpace(s []byte) []byte {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t' || s[0] == '\n' || s[0] == '\r') {
		s = s[1:]
	}
	return s
}
