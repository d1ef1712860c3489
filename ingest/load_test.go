package ingest

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"ragd"
)

func assertParseError(t *testing.T, err error) *ParseError {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("want *ParseError, got %T %v", err, err)
	}
	if !IsPermanent(err) {
		t.Errorf("ParseError not permanent: %v", err)
	}
	return pe
}

func TestTypeForExtension(t *testing.T) {
	for ext, want := range map[string]ragd.SourceType{
		".txt": ragd.SourceText, ".MD": ragd.SourceMarkdown, ".markdown": ragd.SourceMarkdown,
		".Html": ragd.SourceHTML, ".htm": ragd.SourceHTML, ".PDF": ragd.SourcePDF, ".docx": ragd.SourceDOCX,
	} {
		if got, ok := TypeForExtension(ext); !ok || got != want {
			t.Errorf("TypeForExtension(%q) = %q, %v", ext, got, ok)
		}
	}
	for _, ext := range []string{".doc", ".exe", "", "pdf", ".rtf"} {
		if _, ok := TypeForExtension(ext); ok {
			t.Errorf("%q should be unsupported", ext)
		}
	}
	for _, ext := range SupportedExtensions() {
		if _, ok := TypeForExtension(ext); !ok {
			t.Errorf("listed extension %q not mapped", ext)
		}
	}
}

func TestParseUnsupportedType(t *testing.T) {
	_, err := Parse([]byte("x"), ragd.SourceType("rtf"), "a.rtf")
	if !errors.Is(err, ErrUnsupported) || !IsPermanent(err) {
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
		{&ParseError{Source: "x", Err: errors.New("bad")}, true},
		{fmt.Errorf("job: %w", &ParseError{Source: "x", Err: errors.New("bad")}), true},
		{fmt.Errorf("%w: content type image/png", ErrUnsupported), true},
		{&StatusError{StatusCode: 404, Status: "404 Not Found"}, true},
		{&StatusError{StatusCode: 429, Status: "429 Too Many Requests"}, false},
		{&StatusError{StatusCode: 503, Status: "503 Service Unavailable"}, false},
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

func TestParseErrorMessage(t *testing.T) {
	err := parseErr("x.pdf", ragd.SourcePDF, "no extractable text")
	if got := err.Error(); got != `cannot read PDF "x.pdf": no extractable text` {
		t.Errorf("message = %q", got)
	}
}

func TestFallbackTitle(t *testing.T) {
	for in, want := range map[string]string{
		"/a/b/report.pdf":                   "report.pdf",
		"notes.txt":                         "notes.txt",
		"https://example.com/docs/My%20Doc": "My Doc",
		"https://example.com/":              "example.com",
		"https://example.com":               "example.com",
	} {
		if got := fallbackTitle(in); got != want {
			t.Errorf("fallbackTitle(%q) = %q, want %q", in, got, want)
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
