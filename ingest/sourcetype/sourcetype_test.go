package sourcetype

import (
	"testing"

	"ragd"
)

func TestForExtension(t *testing.T) {
	for ext, want := range map[string]ragd.SourceType{
		".txt": ragd.SourceText, ".MD": ragd.SourceMarkdown, ".markdown": ragd.SourceMarkdown,
		".Html": ragd.SourceHTML, ".htm": ragd.SourceHTML, ".PDF": ragd.SourcePDF, ".docx": ragd.SourceDOCX,
	} {
		if got, ok := ForExtension(ext); !ok || got != want {
			t.Errorf("ForExtension(%q) = %q, %v", ext, got, ok)
		}
	}
	for _, ext := range []string{".doc", ".exe", "", "pdf", ".rtf"} {
		if _, ok := ForExtension(ext); ok {
			t.Errorf("%q should be unsupported", ext)
		}
	}
	for _, ext := range Extensions() {
		if _, ok := ForExtension(ext); !ok {
			t.Errorf("listed extension %q not mapped", ext)
		}
	}
}
