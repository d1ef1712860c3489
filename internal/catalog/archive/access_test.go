package archive

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// sharedChunk is doc's chunk i shared with groups.
func sharedChunk(doc string, i int, groups ...string) *Chunk {
	c := chunk(doc, i)
	c.Access = groups
	return c
}

// A document's access travels on it and on each of its chunks and images,
// and comes back from Domain.
func TestAccessRoundTrip(t *testing.T) {
	data := build(t, func(w *Writer) error {
		for i := range 2 {
			if err := w.Chunk(sharedChunk("a", i, "eng", "fin")); err != nil {
				return err
			}
		}
		im := image("a", 0)
		im.Access = []string{"eng", "fin"}
		if err := w.Image(im); err != nil {
			return err
		}
		d := document("a", 2)
		d.Document.Access = []string{"eng", "fin"}
		return w.Document(d)
	})
	ar, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if ar.Header().Version != Version {
		t.Fatalf("version %d, want %d", ar.Header().Version, Version)
	}
	var chunks, images, docs int
	for {
		rec, err := ar.Next()
		if err != nil {
			break
		}
		want := []string{"eng", "fin"}
		switch {
		case rec.Chunk != nil:
			if got := rec.Chunk.Domain().Access; !slices.Equal(got, want) {
				t.Fatalf("chunk access %v, want %v", got, want)
			}
			chunks++
		case rec.Image != nil:
			if got := rec.Image.Domain().Access; !slices.Equal(got, want) {
				t.Fatalf("image access %v, want %v", got, want)
			}
			images++
		case rec.Document != nil:
			if got := rec.Document.Document.Access; !slices.Equal(got, want) {
				t.Fatalf("document access %v, want %v", got, want)
			}
			docs++
		}
	}
	if chunks != 2 || images != 1 || docs != 1 {
		t.Fatalf("read %d chunks, %d images, %d documents", chunks, images, docs)
	}
	if _, err := Validate(bytes.NewReader(data), Rules{}); err != nil {
		t.Fatalf("validate: %v", err)
	}
}

// Chunks that disagree about their document's access, or with the
// document record, are refused: an import would otherwise leave some of
// a restricted document's chunks open.
func TestAccessMismatchRefused(t *testing.T) {
	cases := map[string]func(w *Writer) error{
		"chunks differ": func(w *Writer) error {
			if err := w.Chunk(sharedChunk("a", 0, "eng")); err != nil {
				return err
			}
			if err := w.Chunk(sharedChunk("a", 1)); err != nil {
				return err
			}
			return w.Document(document("a", 2))
		},
		"document differs": func(w *Writer) error {
			if err := w.Chunk(sharedChunk("a", 0)); err != nil {
				return err
			}
			d := document("a", 1)
			d.Document.Access = []string{"eng"}
			return w.Document(d)
		},
	}
	for name, edit := range cases {
		_, err := Validate(bytes.NewReader(build(t, edit)), Rules{})
		if err == nil || !strings.Contains(err.Error(), "access") {
			t.Fatalf("%s: %v, want a refusal naming access", name, err)
		}
	}
}
