package docx

import (
	"os"
	"testing"

	"ragd/internal/testkit/testenv"
)

// BenchmarkDOCX reports what reading real documents allocates: the text
// alone, text and pictures in one pass, and the two passes that reading
// them separately takes.
func BenchmarkDOCX(b *testing.B) {
	for name, file := range map[string][2]string{
		"fitz-pictures": {imgFitzModule, "testdata/test.docx"},
		"story-styles":  {pdfModule, "testdata/story.docx"},
	} {
		data, err := os.ReadFile(testenv.ModuleFile(b, file[0], file[1]))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name+"/text", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := parseDOCX(data, name, false); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/one-pass", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := parseDOCX(data, name, true); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/two-passes", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := parseDOCX(data, name, false); err != nil {
					b.Fatal(err)
				}
				if _, err := extractDOCXImages(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
