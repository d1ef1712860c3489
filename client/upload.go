package client

import (
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"ragd/wire"
	"strings"
)

// Upload is a POST /documents of files on this machine: each becomes the
// document upload://<kb_name>/<base name>.
type Upload struct {
	KBName string
	Tags   []string
	Force  bool
	// Paths are the files, each sent under its base name or, when Names
	// is set, under Names[i].
	Paths []string
	Names []string
}

// Upload sends the files as one multipart request, streamed from disk,
// and returns one job (or dedup hit) per file, in order.
func (c *Client) Upload(ctx context.Context, up Upload) (wire.Uploaded, error) {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() { pw.CloseWithError(writeForm(mw, up)) }()
	var out wire.Uploaded
	_, err := c.call(ctx, request{method: http.MethodPost, path: "/documents", body: pr,
		contentType: mw.FormDataContentType(), ok: []int{http.StatusAccepted, http.StatusOK}}, &out)
	// The request may end before the form is written (an early refusal):
	// stop the writer.
	pr.CloseWithError(io.ErrClosedPipe)
	return out, err
}

// writeForm writes the fields first, so that the server checks the
// namespace before it reads any file.
func writeForm(mw *multipart.Writer, up Upload) error {
	if up.KBName != "" {
		if err := mw.WriteField("kb_name", up.KBName); err != nil {
			return err
		}
	}
	if len(up.Tags) > 0 {
		if err := mw.WriteField("tags", strings.Join(up.Tags, ",")); err != nil {
			return err
		}
	}
	if up.Force {
		if err := mw.WriteField("force", "true"); err != nil {
			return err
		}
	}
	for i, p := range up.Paths {
		name := filepath.Base(p)
		if i < len(up.Names) && up.Names[i] != "" {
			name = up.Names[i]
		}
		if err := writeFile(mw, p, name); err != nil {
			return err
		}
	}
	return mw.Close()
}

func writeFile(mw *multipart.Writer, path, name string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	part, err := mw.CreateFormFile("file", name)
	if err != nil {
		return err
	}
	if _, err := io.Copy(part, f); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}
