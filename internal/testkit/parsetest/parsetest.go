// Package parsetest holds what the tests of the ingest readers share: the
// fixtures they read from the module cache and the assertions every
// reader's output must pass.
package parsetest

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"ragd"
	"ragd/internal/ingest/document"
	"ragd/internal/testkit/testenv"
)

// FitzModule ships one-pixel sample images in every format, and DOCX and
// PDF files with pictures, under testdata.
const FitzModule = "github.com/gen2brain/go-fitz@v1.24.15"

// StorySentence is in every page of body text of the dslipak/pdf story
// fixtures (PDFs and the DOCX they were made from).
const StorySentence = "Stet clita kasd gubergren, no sea takimata sanctus est Lorem ipsum dolor sit amet."

// AssertBlocks compares a loader's blocks with the expected ones, block by block.
func AssertBlocks(t *testing.T, got, want []document.Block) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("blocks:\n got %+v\nwant %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("block %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

// AssertParseError checks that err is a permanent *document.ParseError and
// returns it.
func AssertParseError(t *testing.T, err error) *document.ParseError {
	t.Helper()
	var pe *document.ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("want *ParseError, got %T %v", err, err)
	}
	if !pe.Permanent() {
		t.Errorf("ParseError not permanent: %v", err)
	}
	return pe
}

// WantImagesParseError checks that a corrupt container is reported as a
// permanent *document.ParseError of the right type, without images.
func WantImagesParseError(t *testing.T, what string, imgs []document.Image, err error, typ ragd.SourceType) {
	t.Helper()
	var pe *document.ParseError
	switch {
	case err == nil:
		t.Errorf("%s: no error (%d images)", what, len(imgs))
	case !errors.As(err, &pe):
		t.Errorf("%s: error %T %v, want *ParseError", what, err, err)
	case pe.Type != typ || !pe.Permanent():
		t.Errorf("%s: %v: type %q, permanent %v", what, err, pe.Type, pe.Permanent())
	}
	if imgs != nil {
		t.Errorf("%s: images returned with the error", what)
	}
}

// CheckLoaded asserts what every loader promises for any input: a
// document with blocks and valid UTF-8 text, or a *document.ParseError
// with a valid UTF-8 message.
func CheckLoaded(t *testing.T, typ ragd.SourceType, l *document.Loaded, err error) {
	t.Helper()
	if err != nil {
		var pe *document.ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("error %T %q is not a *ParseError", err, err)
		}
		if !utf8.ValidString(err.Error()) {
			t.Fatalf("error message is not valid UTF-8: %q", err.Error())
		}
		return
	}
	if l == nil || len(l.Blocks) == 0 {
		t.Fatalf("no error and no blocks: %+v", l)
	}
	if l.SourceType != typ {
		t.Fatalf("source type %q, want %q", l.SourceType, typ)
	}
	if !utf8.ValidString(l.Title) || l.Title == "" {
		t.Fatalf("title %q empty or not valid UTF-8", l.Title)
	}
	for i, b := range l.Blocks {
		if !utf8.ValidString(b.Text) || strings.TrimSpace(b.Text) == "" {
			t.Fatalf("block %d %+v: empty or not valid UTF-8", i, b)
		}
		if typ == ragd.SourcePDF && b.Page < 1 {
			t.Fatalf("PDF block %d without a page: %+v", i, b)
		}
	}
}

// StoryPDFs are the dslipak/pdf story fixtures: one story.docx printed to
// PDF by five programs, five pages each.
func StoryPDFs(t *testing.T) []string {
	t.Helper()
	dir := filepath.Dir(testenv.ModuleFile(t, testenv.PDFModule, "testdata/story.docx"))
	pdfs, err := filepath.Glob(filepath.Join(dir, "story_*.pdf"))
	if err != nil || len(pdfs) < 5 {
		t.Fatalf("story PDFs: %v %v", pdfs, err)
	}
	return pdfs
}
