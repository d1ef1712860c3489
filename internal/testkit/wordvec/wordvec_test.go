package wordvec_test

import (
	"context"
	"testing"

	"ragd/internal/testkit/wordvec"
)

func cos(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// Texts sharing words are closer than texts that share none; the same
// text maps to the same vector; every vector has unit length.
func TestEmbed(t *testing.T) {
	e := wordvec.New(64)
	v, err := e.Embed(context.Background(), []string{"Puffins nest in burrows", "where do puffins nest?", "basalt columns cool slowly", "", "Puffins nest in burrows"})
	if err != nil || len(v) != 5 {
		t.Fatal(v, err)
	}
	if near, far := cos(v[0], v[1]), cos(v[0], v[2]); near <= far+0.2 {
		t.Errorf("shared words %.2f, none %.2f", near, far)
	}
	if cos(v[0], v[4]) < 0.9999 {
		t.Error("the same text gave two vectors")
	}
	for i, x := range v {
		if n := cos(x, x); n < 0.999 || n > 1.001 {
			t.Errorf("vector %d has norm² %.3f", i, n)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Embed(ctx, []string{"a"}); err == nil {
		t.Error("a cancelled context embedded")
	}
}
