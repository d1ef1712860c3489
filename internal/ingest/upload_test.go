package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"ragd"
)

// An upload is read from the uploads directory by its hash, parsed by its
// file name, and only if it is still the regular file of those bytes.
func TestReadUpload(t *testing.T) {
	dir := t.TempDir()
	put := func(content string) string {
		hash := ragd.ContentHash([]byte(content))
		if err := os.WriteFile(filepath.Join(dir, hash), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return hash
	}
	r := &Reader{UploadsDir: dir, MaxFileBytes: 64}
	md := put("# Heading\n\nBody text.")
	c, err := r.Read(context.Background(), Source{Upload: md, Filename: "notes.md"})
	raw, loaded := c.Raw, c.Doc
	if err != nil || string(raw) != "# Heading\n\nBody text." || loaded.SourceType != ragd.SourceMarkdown || loaded.Title != "Heading" {
		t.Fatalf("read: %v %q %+v", err, raw, loaded)
	}
	// The same bytes under a .txt name are text.
	if c, err = r.Read(context.Background(), Source{Upload: md, Filename: "notes.txt"}); err != nil || c.Doc.SourceType != ragd.SourceText {
		t.Fatalf("as text: %v %+v", err, loaded)
	}

	big := put(strings.Repeat("x", 65))
	outside := filepath.Join(t.TempDir(), "secret.txt")
	_ = os.WriteFile(outside, []byte("secret"), 0o600)
	linked := ragd.ContentHash([]byte("secret"))
	if err := os.Symlink(outside, filepath.Join(dir, linked)); err != nil {
		t.Fatal(err)
	}
	fifo := ragd.ContentHash([]byte("fifo"))
	if err := syscall.Mkfifo(filepath.Join(dir, fifo), 0o600); err != nil {
		t.Fatal(err)
	}
	swapped := ragd.ContentHash([]byte("original"))
	_ = os.WriteFile(filepath.Join(dir, swapped), []byte("other bytes"), 0o600)
	cases := []struct {
		name string
		src  Source
		want string
	}{
		{"over the limit", Source{Upload: big, Filename: "big.txt"}, "max_file_bytes"},
		{"symlink out", Source{Upload: linked, Filename: "s.txt"}, "symbolic link"},
		{"fifo", Source{Upload: fifo, Filename: "f.txt"}, "named pipe"},
		{"bytes changed", Source{Upload: swapped, Filename: "o.txt"}, "do not match"},
		{"gone", Source{Upload: ragd.ContentHash([]byte("never stored")), Filename: "g.txt"}, "are gone"},
		{"not a hash", Source{Upload: "../../etc/passwd", Filename: "p.txt"}, "not a sha256"},
	}
	for _, c := range cases {
		_, err := r.Read(context.Background(), c.src)
		if err == nil || !strings.Contains(err.Error(), c.want) || !IsPermanent(err) {
			t.Errorf("%s: %v, want a permanent error mentioning %q", c.name, err, c.want)
		}
	}
	if _, err := r.Read(context.Background(), Source{Upload: md, Filename: "notes.exe"}); err == nil || !IsPermanent(err) {
		t.Errorf("unsupported name: %v", err)
	}
	if _, err := (&Reader{MaxFileBytes: 64}).Read(context.Background(), Source{Upload: md, Filename: "notes.md"}); err == nil || !strings.Contains(err.Error(), "no uploads directory") {
		t.Errorf("no uploads directory: %v", err)
	}
}
