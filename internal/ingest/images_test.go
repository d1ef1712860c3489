package ingest

import (
	"sync"
	"testing"

	"ragd"
	"ragd/internal/testkit/parsetest"
)

func TestExtractImagesOtherTypes(t *testing.T) {
	for _, typ := range []ragd.SourceType{ragd.SourceText, ragd.SourceMarkdown, ragd.SourceHTML, ragd.SourceURL} {
		imgs, err := ExtractImages([]byte("<img src=x.png>"), typ)
		if imgs != nil || err != nil {
			t.Errorf("%s: %v, %v; want nil, nil", typ, imgs, err)
		}
	}
}

func TestExtractImagesConcurrent(t *testing.T) {
	docx := readFixture(t, moduleFile(t, parsetest.FitzModule, "testdata/test.docx"))
	pdf := readFixture(t, moduleFile(t, pdfModule, "testdata/tableOfContentWithHeader_tcpdf-org__pdf17_trailer.pdf"))
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			data, typ, want := docx, ragd.SourceDOCX, 2
			if i%2 == 1 {
				data, typ, want = pdf, ragd.SourcePDF, 1
			}
			if imgs, err := ExtractImages(data, typ); err != nil || len(imgs) != want {
				t.Errorf("%s: %d images, %v", typ, len(imgs), err)
			}
		}()
	}
	wg.Wait()
}
