package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"ragd"
	"ragd/internal/authn"
	"ragd/internal/library"
)

// uploadPath is POST /documents, whose body has its own bound (the files').
const uploadPath = "/documents"

// uploadForm documents POST /documents' multipart form in the OpenAPI
// document; the handler reads the parts as they come.
type uploadForm struct {
	File   []string `json:"file" format:"binary" jsonschema:"one part per file, with its filename: the base name is kept, and its extension (.pdf, .docx, .html, .htm, .md, .markdown, .txt) picks the parser; repeat the field for more files (up to ingest.max_upload_files, each at most ingest.max_file_bytes)"`
	KBName string   `json:"kb_name,omitempty" jsonschema:"namespace to index into (default: default); send it before the files so a forbidden namespace is refused before they are read"`
	Tags   []string `json:"tags,omitempty" jsonschema:"labels for every file: repeat the field, or separate tags with commas (a tag cannot hold a comma)"`
	Access []string `json:"access,omitempty" jsonschema:"groups to share every file's document with, comma-separated (absent: each keeps its access, new ones are open; empty: everyone who may use the namespace)"`
	Force  bool     `json:"force,omitempty" jsonschema:"index even files whose bytes the namespace already holds"`
	Wait   bool     `json:"wait,omitempty" jsonschema:"wait (up to http.wait_timeout in all) for the jobs and answer their final states"`
}

// maxFieldBytes bounds one text field of the upload form.
const maxFieldBytes = 64 << 10

// upload serves POST /documents: it streams each file part into the
// library's spool (refusing one over the file limit as soon as it is
// read), then has the library keep and index them.
func (h *handlers) upload(c echo.Context) error {
	req := c.Request()
	boundary, err := multipartBoundary(req.Header.Get(echo.HeaderContentType))
	if err != nil {
		return err
	}
	ctx := req.Context()
	sp := h.svc.Library.NewSpool()
	defer sp.Close()
	form, err := readUploadForm(ctx, multipart.NewReader(req.Body, boundary), sp)
	if err != nil {
		return err
	}
	up, err := h.svc.Library.Upload(ctx, library.UploadRequest{KBName: form.kbName, Tags: form.tags, Access: form.access, Force: form.force, Files: sp})
	if err != nil {
		return err
	}
	pending := false
	if form.wait {
		done, err := h.svc.Library.WaitUploads(ctx, &up)
		if err != nil {
			return err
		}
		pending = !done
	} else {
		for _, j := range up.Jobs {
			pending = pending || j.JobID != nil
		}
	}
	if pending {
		return c.JSON(http.StatusAccepted, up)
	}
	return c.JSON(http.StatusOK, up)
}

// multipartBoundary refuses any body but multipart/form-data (415).
func multipartBoundary(contentType string) (string, error) {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil || mt != "multipart/form-data" {
		return "", &ragd.Error{Kind: ragd.KindMediaType,
			Message: fmt.Sprintf("POST %s takes multipart/form-data (file parts), not %q", uploadPath, contentType)}
	}
	if params["boundary"] == "" {
		return "", echo.NewHTTPError(http.StatusBadRequest, "multipart/form-data without a boundary")
	}
	return params["boundary"], nil
}

// uploadFields are the form's text fields.
type uploadFields struct {
	kbName      string
	kbNameGiven bool
	tags        []string
	access      []string // nil when not given
	force, wait bool
}

// readUploadForm reads the parts in order: text fields into the result,
// files into sp. A namespace given before the first file is checked before
// any file is read; one given later, by the library once all are read.
func readUploadForm(ctx context.Context, mr *multipart.Reader, sp *library.Spool) (uploadFields, error) {
	var f uploadFields
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return f, nil
		}
		if err != nil {
			return f, malformed(err)
		}
		name := part.FormName()
		if part.FileName() != "" || name == "file" {
			if name != "file" {
				return f, invalidField(name, "file parts must be named file, not %q", name)
			}
			if f.kbNameGiven && len(sp.Files()) == 0 {
				if _, err := authn.Namespace(ctx, f.kbName); err != nil {
					return f, err
				}
			}
			if err := sp.Add(part.FileName(), partReader{part}); err != nil {
				return f, err
			}
			continue
		}
		if err := f.set(name, part); err != nil {
			return f, err
		}
	}
}

// set reads one text field; fields the form does not know are ignored.
func (f *uploadFields) set(name string, part *multipart.Part) error {
	raw, err := io.ReadAll(io.LimitReader(partReader{part}, maxFieldBytes+1))
	if err != nil {
		return err
	}
	if len(raw) > maxFieldBytes {
		return invalidField(name, "form field %s is longer than %d bytes", name, maxFieldBytes)
	}
	value := string(raw)
	switch name {
	case "kb_name":
		if f.kbNameGiven {
			return invalidField(name, "kb_name is given twice")
		}
		f.kbName, f.kbNameGiven = strings.TrimSpace(value), true
	case "tags":
		for t := range strings.SplitSeq(value, ",") {
			if t = strings.TrimSpace(t); t != "" {
				f.tags = append(f.tags, t)
			}
		}
	case "access":
		if f.access != nil {
			return invalidField(name, "access is given twice; separate its groups with commas")
		}
		f.access = []string{}
		for g := range strings.SplitSeq(value, ",") {
			if g = strings.TrimSpace(g); g != "" {
				f.access = append(f.access, g)
			}
		}
	case "force", "wait":
		b, err := strconv.ParseBool(strings.TrimSpace(value))
		if err != nil {
			return &ragd.Error{Kind: ragd.KindInvalid, Message: "not a boolean", Fields: []ragd.FieldError{{
				Loc: []string{"body", name}, Type: "type_error", Msg: name + " must be true or false, not " + strconv.Quote(value)}}}
		}
		if name == "force" {
			f.force = b
		} else {
			f.wait = b
		}
	}
	return nil
}

func invalidField(name, format string, args ...any) error {
	return ragd.Invalid(name, "value_error", format, args...)
}

// partReader reports a broken multipart body as a 400, and a body over its
// bound as the *http.MaxBytesError handleError answers with 413.
type partReader struct{ r io.Reader }

func (p partReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if err != nil && !errors.Is(err, io.EOF) {
		err = malformed(err)
	}
	return n, err
}

func malformed(err error) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return tooLarge
	}
	return echo.NewHTTPError(http.StatusBadRequest, "malformed multipart body: "+err.Error())
}
