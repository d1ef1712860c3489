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

// The plain names projects give text files without an extension load as
// text, whatever their case and directory; other names without one, and
// a plain name with an unsupported extension, do not.
func TestForName(t *testing.T) {
	for name, want := range map[string]ragd.SourceType{
		"README": ragd.SourceText, "/repo/docs/LICENSE": ragd.SourceText, "Changelog": ragd.SourceText,
		"README.md": ragd.SourceMarkdown, `C:\x\notes.TXT`: ragd.SourceText, "a/b/page.html": ragd.SourceHTML,
	} {
		if got, ok := ForName(name); !ok || got != want {
			t.Errorf("ForName(%q) = %q, %v; want %q", name, got, ok, want)
		}
	}
	for _, name := range []string{"Makefile", "main", "README.exe", "dir/.README", ""} {
		if _, ok := ForName(name); ok {
			t.Errorf("ForName(%q) should be unsupported", name)
		}
	}
}
