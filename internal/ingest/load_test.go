package ingest

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"ragd"
	"ragd/internal/ingest/document"
	"ragd/internal/ingest/guard"
	"ragd/internal/ingest/sourcetype"
)

func assertParseError(t *testing.T, err error) *document.ParseError {
	t.Helper()
	var pe *document.ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("want *document.ParseError, got %T %v", err, err)
	}
	if !IsPermanent(err) {
		t.Errorf("ParseError not permanent: %v", err)
	}
	return pe
}

func TestParseUnsupportedType(t *testing.T) {
	_, err := Parse([]byte("x"), ragd.SourceType("rtf"), "a.rtf")
	if !errors.Is(err, sourcetype.ErrUnsupported) || !IsPermanent(err) {
		t.Errorf("err = %v", err)
	}
}

func TestNormalizedTextIsStable(t *testing.T) {
	a, err := Parse([]byte("Hello   world\t again\r\n\r\n\r\n\r\nSecond  para \r\nline"), ragd.SourceText, "a.txt")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Parse([]byte("\ufeffHello world again\n\nSecond para\nline\n"), ragd.SourceText, "b.txt")
	if a.NormalizedText() != "Hello world again\n\nSecond para\nline" || a.NormalizedText() != b.NormalizedText() {
		t.Errorf("normalized:\n%q\n%q", a.NormalizedText(), b.NormalizedText())
	}
	if ragd.ContentHash([]byte(a.NormalizedText())) != ragd.ContentHash([]byte(b.NormalizedText())) {
		t.Error("content hash differs for equivalent text")
	}
}

func TestIsPermanent(t *testing.T) {
	cases := []struct {
		err  error
		want bool
	}{
		{nil, false},
		{&document.ParseError{Source: "x", Err: errors.New("bad")}, true},
		{fmt.Errorf("job: %w", &document.ParseError{Source: "x", Err: errors.New("bad")}), true},
		{fmt.Errorf("%w: content type image/png", sourcetype.ErrUnsupported), true},
		{&guard.StatusError{StatusCode: 404, Status: "404 Not Found"}, true},
		{&guard.StatusError{StatusCode: 429, Status: "429 Too Many Requests"}, false},
		{&guard.StatusError{StatusCode: 503, Status: "503 Service Unavailable"}, false},
		{ragd.Forbidden("no"), true},
		{ragd.Unavailable("weaviate", errors.New("down")), false},
		{errors.New("connection reset"), false},
	}
	for _, c := range cases {
		if got := IsPermanent(c.err); got != c.want {
			t.Errorf("IsPermanent(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

func TestEmptyDocumentsAreParseErrors(t *testing.T) {
	for typ, data := range map[ragd.SourceType]string{
		ragd.SourceText:     " \n\t\n",
		ragd.SourceMarkdown: "---\ntitle: x\n---\n\n***\n",
		ragd.SourceHTML:     "<p> </p>",
	} {
		_, err := Parse([]byte(data), typ, "empty")
		if pe := assertParseError(t, err); !strings.Contains(pe.Error(), "no extractable text") {
			t.Errorf("%s: %v", typ, pe)
		}
	}
}
