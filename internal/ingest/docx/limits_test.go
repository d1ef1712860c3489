package docx

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/flate"
	"errors"
	"io"
	"math/rand"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"ragd/internal/ingest/document"
)

// The regression tests of the DOCX limits build hostile files in memory
// and read each as text (Parse) and for its pictures (ExtractImages): both
// must refuse it with a *document.ParseError naming the limit, within a memory
// budget. They use only Parse and ExtractImages, so they also run against
// the reader that came before.

// docxMemoryBudget is what reading one hostile DOCX may allocate in all
// (runtime TotalAlloc, which is deterministic) or hold at once.
const docxMemoryBudget = 64 << 20

const (
	docxHostileHead = `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Some real text.</w:t></w:r></w:p>`
	docxHostileTail = `</w:body></w:document>`
	docxStylesHead  = `<w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">`
)

// hostileDOCX builds a deflated DOCX whose parts the writers produce,
// streamed into the archive so that the test never holds an inflated part.
func hostileDOCX(t testing.TB, parts map[string]func(io.Writer)) []byte {
	return hostileDOCXMethod(t, zip.Deflate, parts)
}

// hostileDOCXMethod is hostileDOCX with the compression method of the
// parts: zip.Store makes a bomb as large as it inflates to, which no
// compression ratio can refuse, so the streaming limits must.
func hostileDOCXMethod(t testing.TB, method uint16, parts map[string]func(io.Writer)) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) { return flate.NewWriter(w, flate.BestSpeed) })
	for _, name := range []string{"word/document.xml", "word/styles.xml", "docProps/core.xml"} {
		write, ok := parts[name]
		if !ok {
			continue
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		bw := bufio.NewWriterSize(w, 64<<10)
		write(bw)
		if err := bw.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// repeatTo writes chunk to w until n bytes (rounded up to whole chunks)
// are written.
func repeatTo(w io.Writer, chunk string, n int) {
	if chunk == "" {
		return
	}
	per := max(1, (64<<10)/len(chunk))
	block := []byte(strings.Repeat(chunk, per))
	for left := (n + len(chunk) - 1) / len(chunk); left > 0; left -= per {
		w.Write(block[:min(left, per)*len(chunk)])
	}
}

// docxBody writes a main part of some real text, then head, n bytes of
// chunk and tail.
func docxBody(head, chunk string, n int, tail string) func(io.Writer) {
	return func(w io.Writer) {
		io.WriteString(w, docxHostileHead+head)
		repeatTo(w, chunk, n)
		io.WriteString(w, tail+docxHostileTail)
	}
}

// randomWords is 1 MiB of incompressible lowercase words: repeated, it
// still does not compress, its period being beyond deflate's window.
func randomWords(seed int64) []byte {
	r := rand.New(rand.NewSource(seed))
	b := make([]byte, 1<<20)
	for i := range b {
		if i%8 == 7 {
			b[i] = ' '
		} else {
			b[i] = byte('a' + r.Intn(26))
		}
	}
	return b
}

// memoryUse runs f and returns what it allocated in all and the most live
// heap (marked reachable by a collection) seen while it ran. Live, not in
// use: the heap in use also holds garbage not yet swept, whose amount
// depends on how the collector is paced on a loaded machine (CI saw 64 MiB
// in use where 41 were live); sampled, so a lower bound.
func memoryUse(f func()) (total, peak uint64) {
	// GOGC=25 while f runs: a collection every quarter of growth, so the
	// live heap is sampled often, whatever the environment sets
	defer debug.SetGCPercent(debug.SetGCPercent(25))
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(live)
	base := live[0].Value.Uint64()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			metrics.Read(live)
			peak = max(peak, live[0].Value.Uint64()-min(live[0].Value.Uint64(), base))
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	f()
	// one more collection, so what f still held at its end is counted too
	runtime.GC()
	close(done)
	wg.Wait()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, peak
}

// The costs the DOCX reader counts for a block and a picture paragraph
// must cover what one holds: at the slice's growth its old and new arrays
// (9/4 of the element) and the smallest allocation of its text. Counting
// a document.Block as 40 bytes when it is 48 let a document of tiny paragraphs hold
// 41 MiB live under the 32 MiB limit.
func TestDOCXCostsCoverWhatIsHeld(t *testing.T) {
	for _, c := range []struct {
		name       string
		cost, size uintptr
	}{
		{"docxBlockCost", docxBlockCost, unsafe.Sizeof(document.Block{})},
		{"docxParCost", docxParCost, unsafe.Sizeof(docxImgPar{})},
	} {
		if need := c.size*9/4 + 8; c.cost < need {
			t.Errorf("%s is %d, but an element of %d bytes holds up to %d", c.name, c.cost, c.size, need)
		}
	}
}

// assertDOCXRefused reads data as text and for its pictures and requires
// both to fail with a *document.ParseError saying want, within the memory budget:
// in all, or at once only when peakOnly (every token of a long part is
// garbage: encoding/xml allocates ~250 bytes an element).
func assertDOCXRefused(t *testing.T, data []byte, want string, peakOnly bool) {
	t.Helper()
	for _, read := range []struct {
		name string
		f    func() error
	}{
		{"text", func() error { _, err := Parse(data, "hostile.docx", false); return err }},
		{"pictures", func() error { _, err := ExtractImages(data); return err }},
	} {
		var err error
		total, peak := memoryUse(func() { err = read.f() })
		t.Logf("%s: allocated %d MiB in all, peak live heap %d MiB: %v", read.name, total>>20, peak>>20, err)
		var pe *document.ParseError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want a *document.ParseError saying %q", read.name, err, want)
		}
		if peak > docxMemoryBudget || (!peakOnly && total > docxMemoryBudget) {
			t.Errorf("%s: allocated %d MiB in all, peak live heap %d MiB; budget %d MiB", read.name, total>>20, peak>>20, docxMemoryBudget>>20)
		}
	}
}

// 80 MiB of nested elements in a ~125 KB file took 2.55 GB. Deflated, the
// ratio refuses it before reading; stored, the depth does.
func TestDOCXLimitNesting(t *testing.T) {
	const depth = 8 << 20 // 40 MiB of start tags, 48 MiB of end tags
	parts := map[string]func(io.Writer){"word/document.xml": func(w io.Writer) {
		io.WriteString(w, docxHostileHead+"<w:p>")
		repeatTo(w, "<w:r>", depth*len("<w:r>"))
		repeatTo(w, "</w:r>", depth*len("</w:r>"))
		io.WriteString(w, "</w:p>"+docxHostileTail)
	}}
	assertDOCXRefused(t, hostileDOCX(t, parts), "word/document.xml inflates more than 100× its compressed size", false)
	assertDOCXRefused(t, hostileDOCXMethod(t, zip.Store, parts), "word/document.xml nests elements deeper than 256", false)
}

// 80 MiB of <w:style/> in styles.xml took 2.9 GB: it was decoded into a
// slice.
func TestDOCXLimitStyles(t *testing.T) {
	parts := map[string]func(io.Writer){
		"word/document.xml": docxBody("", "", 0, ""),
		"word/styles.xml": func(w io.Writer) {
			io.WriteString(w, docxStylesHead)
			repeatTo(w, `<w:style/>`, 80<<20)
			io.WriteString(w, `</w:styles>`)
		},
	}
	assertDOCXRefused(t, hostileDOCX(t, parts), "word/styles.xml inflates more than 100× its compressed size", false)
	assertDOCXRefused(t, hostileDOCXMethod(t, zip.Store, parts), "word/styles.xml defines more than 16384 styles", false)
}

// One text node of 32 MiB: the decoder buffers a token whole. So it does
// a tag of endless attributes, or a comment.
func TestDOCXLimitTokenSize(t *testing.T) {
	for name, part := range map[string]func(io.Writer){
		"text node":  docxBody("<w:p><w:r><w:t>", "a", 32<<20, "</w:t></w:r></w:p>"),
		"attributes": docxBody("<w:p ", `w:a="b" `, 16<<20, "/>"),
		"comment":    docxBody("<!--", "x", 32<<20, "-->"),
	} {
		t.Run(name, func(t *testing.T) {
			parts := map[string]func(io.Writer){"word/document.xml": part}
			assertDOCXRefused(t, hostileDOCX(t, parts), "word/document.xml inflates more than 100× its compressed size", false)
			assertDOCXRefused(t, hostileDOCXMethod(t, zip.Store, parts), "word/document.xml has a text node, tag or comment over 1 MiB", false)
		})
	}
}

// An attribute-heavy part that deflates ~1000:1 and trips no other limit;
// its header says how far it inflates, so it is refused unread.
func TestDOCXLimitRatio(t *testing.T) {
	chunk := `<w:bookmarkStart w:name="` + strings.Repeat("x", 1000) + `"/>`
	data := hostileDOCX(t, map[string]func(io.Writer){
		"word/document.xml": docxBody("", chunk, 80<<20, ""),
	})
	assertDOCXRefused(t, data, "word/document.xml inflates more than 100× its compressed size", false)
}

// 36 MiB of text in ordinary runs, none over the token limit (stored:
// random words would not compress enough to trip the ratio anyway).
func TestDOCXLimitText(t *testing.T) {
	words := randomWords(1)
	data := hostileDOCXMethod(t, zip.Store, map[string]func(io.Writer){"word/document.xml": func(w io.Writer) {
		io.WriteString(w, docxHostileHead)
		for i := range 36 << 4 {
			io.WriteString(w, "<w:p><w:r><w:t>")
			w.Write(words[i%16<<16 : (i%16+1)<<16])
			io.WriteString(w, "</w:t></w:r></w:p>")
		}
		io.WriteString(w, docxHostileTail)
	}})
	assertDOCXRefused(t, data, "word/document.xml holds more than 32 MiB of text and blocks", false)
}

// 1.2 million paragraphs of two letters: little text, but a block costs
// more than its text (690,000 of them, deflated to 1.7 MB, took 110 MiB
// of heap, 148 with pictures).
func TestDOCXLimitBlocks(t *testing.T) {
	words := randomWords(2)
	data := hostileDOCXMethod(t, zip.Store, map[string]func(io.Writer){"word/document.xml": func(w io.Writer) {
		io.WriteString(w, docxHostileHead)
		b := []byte("<w:p><w:r><w:t>xy</w:t></w:r></w:p>")
		for i := range 1_200_000 {
			copy(b[15:17], words[i%(1<<19)*2:])
			w.Write(b)
		}
		io.WriteString(w, docxHostileTail)
	}})
	assertDOCXRefused(t, data, "word/document.xml holds more than 32 MiB of text and blocks", true)
}

// Hundreds of thousands of small elements (not styles) in styles.xml:
// bounded in count.
func TestDOCXLimitElements(t *testing.T) {
	words := randomWords(3)
	data := hostileDOCXMethod(t, zip.Store, map[string]func(io.Writer){
		"word/document.xml": docxBody("", "", 0, ""),
		"word/styles.xml": func(w io.Writer) {
			io.WriteString(w, docxStylesHead)
			b := []byte(`<w:lsdException w:name="xxxxxxx"/>`)
			for i := range 300_000 {
				copy(b[24:31], words[i%(1<<17)*8:])
				w.Write(b)
			}
			io.WriteString(w, `</w:styles>`)
		},
	})
	assertDOCXRefused(t, data, "word/styles.xml has more than 262144 elements", true)
}

// The ratio's allowance: a small part may compress extremely well (a few
// MiB of empty paragraphs) and still be read.
func TestDOCXRatioAllowance(t *testing.T) {
	data := hostileDOCX(t, map[string]func(io.Writer){
		"word/document.xml": docxBody("", "<w:p/>", 3<<20, ""),
	})
	l, err := Parse(data, "empty-paragraphs.docx", false)
	if err != nil || l.NormalizedText() != "Some real text." {
		t.Fatalf("%v, %v", l, err)
	}
}
