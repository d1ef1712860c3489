package pdftext

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/filter"

	"ragd/internal/testkit/testenv"
)

// encode runs s through pdfcpu's encoders, the last filter first, as a
// producer writing /Filter [names...] would.
func encode(t *testing.T, s string, parms map[string]int, names ...string) string {
	t.Helper()
	var r io.Reader = strings.NewReader(s)
	for i := len(names) - 1; i >= 0; i-- {
		f, err := filter.NewFilter(names[i], parms)
		if err != nil {
			t.Fatal(err)
		}
		if r, err = f.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Content streams compressed with LZWDecode — PDF's default EarlyChange 1,
// an explicit EarlyChange 0, and LZW under ASCII85 — are read; the PDF
// library alone refuses the filter ("unknown filter LZWDecode").
func TestLZWContentStreamsAreRead(t *testing.T) {
	// Long enough for LZW's codes to pass 511, where EarlyChange matters.
	var content strings.Builder
	var lines []string
	content.WriteString("BT /F1 9 Tf 12 TL 72 760 Td\n")
	for i := 0; i < 60; i++ {
		ln := "Line " + strconv.Itoa(i) + " of an LZW stream, checksum " + strconv.Itoa(i*7919%10007) + ", as Acrobat 2 wrote them."
		lines = append(lines, ln)
		content.WriteString("(" + ln + ") Tj T*\n")
	}
	content.WriteString("ET")
	if encode(t, content.String(), map[string]int{"EarlyChange": 0}, filter.LZW) == encode(t, content.String(), nil, filter.LZW) {
		t.Fatal("the stream is too short for EarlyChange to matter")
	}
	for _, tc := range []struct {
		name, dict string
		parms      map[string]int
		filters    []string
	}{
		{"early change 1", "/Filter /LZWDecode", nil, []string{filter.LZW}},
		{"early change 0", "/Filter /LZWDecode /DecodeParms << /EarlyChange 0 >>", map[string]int{"EarlyChange": 0}, []string{filter.LZW}},
		{"under ASCII85", "/Filter [/ASCII85Decode /LZWDecode]", nil, []string{filter.ASCII85, filter.LZW}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			enc := encode(t, content.String(), tc.parms, tc.filters...)
			if strings.Contains(enc, "Acrobat") {
				t.Fatal("the stream is not compressed")
			}
			data := testenv.OnePagePDF("<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
				"<< /Length "+strconv.Itoa(len(enc))+" "+tc.dict+" >>\nstream\n"+enc+"\nendstream")
			if _, err := parsePDF(data, "lzw.pdf", 10, OCR{Off: true}, nil); err == nil || !strings.Contains(err.Error(), "unknown filter LZWDecode") {
				t.Fatalf("the PDF library alone: want its LZW refusal, got %v", err)
			}
			l, err := Parser{OCR: OCR{Off: true}}.Parse(t.Context(), data, "lzw.pdf")
			if err != nil {
				t.Fatal(err)
			}
			got := l.NormalizedText()
			for _, ln := range lines {
				if !strings.Contains(got, ln) {
					t.Fatalf("text lacks %q:\n%s", ln, got)
				}
			}
			if l.Blocks[0].Page != 1 {
				t.Errorf("page %d", l.Blocks[0].Page)
			}
		})
	}
}

// A PDF without LZW is passed on as it is, not rewritten.
func TestReadablePDFLeavesOtherFilesAlone(t *testing.T) {
	data := testenv.OnePagePDF("<< /Type /Pages /Kids [3 0 R] /Count 1 >>", testenv.TextStream("BT /F1 12 Tf 72 720 Td (plain) Tj ET"))
	if got := readablePDF(data, 1<<20); !bytes.Equal(got, data) {
		t.Error("a PDF without LZWDecode was rewritten")
	}
	broken := append([]byte("%PDF-1.4\n/LZWDecode"), make([]byte, 64)...)
	if got := readablePDF(broken, 1<<20); !bytes.Equal(got, broken) {
		t.Error("a file pdfcpu cannot read was not passed on as it is")
	}
}
