package pdftext

import (
	"math/rand"
	"strings"
	"testing"

	"ragd/internal/testkit/testenv"
)

func TestPDFBrokenInputs(t *testing.T) {
	good := readFixture(t, storyPDFs(t)[0])
	rng := rand.New(rand.NewSource(1))
	random := make([]byte, 4096)
	rng.Read(random)
	inputs := map[string][]byte{
		"empty.pdf":     {},
		"random.pdf":    random,
		"header.pdf":    []byte("%PDF-1.7\n"),
		"text.pdf":      []byte("this is not a PDF at all\n%%EOF\n"),
		"truncated.pdf": good[:len(good)/2],
		"headless.pdf":  good[len(good)/3:],
	}
	for name, data := range inputs {
		t.Run(name, func(t *testing.T) {
			_, err := parse(data, name)
			pe := assertParseError(t, err)
			if !strings.HasPrefix(pe.Error(), `cannot read PDF "`+name+`"`) {
				t.Errorf("message = %q", pe.Error())
			}
		})
	}
	// many truncation points and garbage spliced into a real file: an error
	// or a result, never a panic
	for cut := 64; cut < len(good); cut += len(good) / 23 {
		if _, err := parse(good[:cut], "cut.pdf"); err != nil {
			assertParseError(t, err)
		}
		spliced := append([]byte(nil), good...)
		copy(spliced[cut:], random[:min(512, len(good)-cut)])
		if _, err := parse(spliced, "spliced.pdf"); err != nil {
			assertParseError(t, err)
		}
	}
}

func TestPDFWithoutTextIsParseError(t *testing.T) {
	// a valid one-page PDF with no content stream, like a scan without OCR
	pdf := testenv.MinimalPDF("")
	_, err := parse(pdf, "scan.pdf")
	pe := assertParseError(t, err)
	if !strings.Contains(pe.Error(), "no extractable text") {
		t.Errorf("message = %q", pe.Error())
	}
	l, err := parse(testenv.MinimalPDF("BT /F1 12 Tf 72 720 Td (Hello from a tiny PDF.) Tj ET"), "tiny.pdf")
	if err != nil {
		t.Fatal(err)
	}
	if got := l.NormalizedText(); got != "Hello from a tiny PDF." {
		t.Errorf("text = %q", got)
	}
}
