package library

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ragd/internal/ingest/guard"

	"ragd"
)

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// A spool keeps files in temporary files until commit moves them to their
// hash's name; two uploads of the same bytes share one file, and what was
// not committed is removed.
func TestSpoolCommitsByHash(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "uploads")
	u := &Uploads{Dir: dir, MaxFileBytes: 16, MaxFiles: 3}
	for round := range 2 {
		sp := u.NewSpool()
		if err := sp.Add(`C:\docs\a.md`, strings.NewReader("same bytes")); err != nil {
			t.Fatal(err)
		}
		f := sp.Files()[0]
		if f.Filename != "a.md" || f.Type != ragd.SourceMarkdown || f.Hash != ragd.ContentHash([]byte("same bytes")) || f.Size != 10 {
			t.Fatalf("spooled %+v", f)
		}
		if names := dirNames(t, dir); len(names) != round+1 || !strings.HasPrefix(names[0], ".upload-") {
			t.Fatalf("before commit: %v", names)
		}
		if err := sp.commit(); err != nil {
			t.Fatal(err)
		}
		sp.Close()
		if names := dirNames(t, dir); len(names) != 1 || names[0] != f.Hash {
			t.Fatalf("after commit: %v", names)
		}
	}

	sp := u.NewSpool()
	if err := sp.Add("b.txt", strings.NewReader("uncommitted")); err != nil {
		t.Fatal(err)
	}
	err := sp.Add("c.txt", bytes.NewReader(make([]byte, 17)))
	if ragd.KindOf(err) != ragd.KindTooLarge || !strings.Contains(err.Error(), "c.txt is larger than ingest.max_file_bytes (16 bytes)") {
		t.Fatalf("over the limit: %v", err)
	}
	if err := sp.Add("d.txt", bytes.NewReader(make([]byte, 16))); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	if err := sp.Add("e.txt", strings.NewReader("x")); err != nil {
		t.Fatal(err)
	}
	if err := sp.Add("f.txt", strings.NewReader("x")); ragd.KindOf(err) != ragd.KindTooLarge || !strings.Contains(err.Error(), "max_upload_files") {
		t.Fatalf("a fourth file: %v", err)
	}
	sp.Close()
	if names := dirNames(t, dir); len(names) != 1 {
		t.Fatalf("close left %v", names)
	}
}

func TestUploadFilename(t *testing.T) {
	for raw, want := range map[string]string{"a.md": "a.md", "dir/sub/b.PDF": "b.PDF", `C:\x\c.docx`: "c.docx", "d e.txt": "d e.txt", "ü.html": "ü.html"} {
		if got, _, err := guard.UploadName(raw); err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", raw, got, err, want)
		}
	}
	for _, raw := range []string{"", " ", "/", "dir/", "..", ".", "a\nb.md", "a\x00.md", "\xff.md", strings.Repeat("n", 253) + ".md", "x.exe", "noext"} {
		if _, _, err := guard.UploadName(raw); ragd.KindOf(err) != ragd.KindInvalid {
			t.Errorf("%q accepted: %v", raw, err)
		}
	}
}
