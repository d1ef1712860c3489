package testenv

import (
	"bytes"
	"compress/zlib"
	"strconv"
	"strings"
)

// PDFOf writes objs as objects 1..n of a PDF with a correct
// cross-reference table; object 1 must be the catalog. Tests build the
// exact (and the hostile) structures they need with it.
func PDFOf(objs []string) []byte {
	var b strings.Builder
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		b.WriteString(strconv.Itoa(i+1) + " 0 obj\n" + o + "\nendobj\n")
	}
	xref := b.Len()
	b.WriteString("xref\n0 " + strconv.Itoa(len(objs)+1) + "\n0000000000 65535 f \n")
	for _, off := range offsets {
		s := strconv.Itoa(off)
		b.WriteString(strings.Repeat("0", 10-len(s)) + s + " 00000 n \n")
	}
	b.WriteString("trailer\n<< /Size " + strconv.Itoa(len(objs)+1) + " /Root 1 0 R >>\nstartxref\n" + strconv.Itoa(xref) + "\n%%EOF\n")
	return []byte(b.String())
}

// MinimalPDF builds a one-page PDF whose page shows content (no content
// stream when empty), with a correct cross-reference table.
func MinimalPDF(content string) []byte {
	var objs []string
	objs = append(objs, "<< /Type /Catalog /Pages 2 0 R >>")
	objs = append(objs, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	page := "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >>"
	if content != "" {
		page += " /Contents 5 0 R"
	}
	objs = append(objs, page+" >>")
	objs = append(objs, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	if content != "" {
		objs = append(objs, "<< /Length "+strconv.Itoa(len(content))+" >>\nstream\n"+content+"\nendstream")
	}
	return PDFOf(objs)
}

// OnePagePDF is a one-page PDF (catalog, pages, page, Helvetica) whose
// /Pages node is pages and whose page content is the stream object
// content (object 5).
func OnePagePDF(pages, content string) []byte {
	return PDFOf([]string{
		"<< /Type /Catalog /Pages 2 0 R >>", pages,
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>", content,
	})
}

// TextStream is a stream object holding s as it is.
func TextStream(s string) string {
	return "<< /Length " + strconv.Itoa(len(s)) + " >>\nstream\n" + s + "\nendstream"
}

// DeflatedStream is a FlateDecode stream object inflating to n bytes of
// pattern repeated: a few hundred bytes per megabyte in the file.
func DeflatedStream(pattern string, n int) string {
	var b bytes.Buffer
	w, _ := zlib.NewWriterLevel(&b, zlib.BestSpeed)
	chunk := []byte(strings.Repeat(pattern, (1<<20)/len(pattern)))
	for done := 0; done < n; done += len(chunk) {
		_, _ = w.Write(chunk)
	}
	_ = w.Close()
	return "<< /Length " + strconv.Itoa(b.Len()) + " /Filter /FlateDecode >>\nstream\n" + b.String() + "\nendstream"
}

// CyclicPDF is a 600-byte file that once spun a worker for ever: its
// /Pages node lists itself among its kids.
func CyclicPDF() []byte {
	return OnePagePDF("<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>", TextStream("BT /F1 12 Tf 72 720 Td (cycle) Tj ET"))
}

// HugeCountPDF has one page but declares count of them.
func HugeCountPDF(count int) []byte {
	return OnePagePDF("<< /Type /Pages /Kids [3 0 R] /Count "+strconv.Itoa(count)+" >>", TextStream("BT /F1 12 Tf 72 720 Td (one page) Tj ET"))
}

// SlowPDF's one page draws mib MiB of cheap operators: parsing it takes
// long. The page lists one stream of 1 MiB mib times (a content array is
// read as one stream), so the file stays small and quick to build.
func SlowPDF(mib int) []byte { return repeatedContentPDF("q Q ", mib) }

// BalloonPDF's one page holds a single number token of mib MiB: parsing it
// takes that much memory and more.
func BalloonPDF(mib int) []byte { return repeatedContentPDF("0", mib) }

func repeatedContentPDF(pattern string, mib int) []byte {
	refs := strings.TrimSpace(strings.Repeat("5 0 R ", mib))
	return PDFOf([]string{
		"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents [" + refs + "] >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>", DeflatedStream(pattern, 1<<20),
	})
}
