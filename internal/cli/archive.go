package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"ragd"
	"ragd/wire"
)

// runExport: ragd export KB FILE, the namespace's archive streamed into
// FILE (written beside it first, so a broken transfer leaves no FILE).
func runExport(ctx context.Context, s *session, args []string) error {
	fs := s.flags()
	pos, err := s.parse(fs, args, 2, 2)
	if err != nil {
		return err
	}
	kb, file := pos[0], pos[1]
	if !ragd.ValidNamespace(kb) {
		return usageErrorf("%q is not a namespace name: %s", kb, ragd.NamespaceRule)
	}
	c, err := s.client()
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".part-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // once renamed, there is nothing left to remove
	d := s.newDisplay()
	g := newGauge("export "+kb, "bytes")
	g.set(0, 0, "", "", "")
	d.add(g)
	n, err := c.Export(ctx, kb, &gaugeWriter{w: tmp, g: g})
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), file)
	}
	g.finish(err != nil)
	d.wait()
	if err != nil {
		return err
	}
	took := time.Since(g.start)
	if s.globals.json {
		return s.emit(Exported{KBName: kb, File: file, Bytes: n, Seconds: took.Round(time.Millisecond).Seconds()})
	}
	s.printf("exported %s to %s: %s in %s\n", kb, file, byteSize(float64(n)), seconds(took))
	return nil
}

// Exported is ragd export's --json output.
type Exported struct {
	KBName  string  `json:"kb_name"`
	File    string  `json:"file"`
	Bytes   int64   `json:"bytes"`
	Seconds float64 `json:"seconds"`
}

// Imported is ragd import's --json output: the upload's answer, and the
// job that loaded the archive as it ended.
type Imported struct {
	Upload  wire.ImportEnqueued `json:"upload"`
	Job     *ragd.Job           `json:"job"`
	Result  *wire.ImportResult  `json:"result,omitempty"`
	Seconds float64             `json:"seconds"`
}

// runImport: ragd import KB FILE, the archive uploaded with progress by
// bytes, then its import job followed to its end.
func runImport(ctx context.Context, s *session, args []string) error {
	fs := s.flags()
	pos, err := s.parse(fs, args, 2, 2)
	if err != nil {
		return err
	}
	kb, file := pos[0], pos[1]
	if !ragd.ValidNamespace(kb) {
		return usageErrorf("%q is not a namespace name: %s", kb, ragd.NamespaceRule)
	}
	f, err := os.Open(file)
	if err != nil {
		return usageErrorf("%s: %v", file, unwrapPath(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return usageErrorf("%s is not a regular file", file)
	}
	c, err := s.client()
	if err != nil {
		return err
	}
	start := time.Now()
	d := s.newDisplay()
	up := newGauge("upload "+filepath.Base(file), "bytes")
	up.set(0, fi.Size(), "", "", "")
	d.add(up)
	enq, err := c.Import(ctx, kb, &gaugeReader{r: f, g: up}, fi.Size())
	up.finish(err != nil)
	if err != nil {
		d.wait()
		return err
	}
	g := newGauge("import "+kb, "chunks")
	d.add(g)
	job, err := followJob(ctx, c, enq.JobID, func(j *ragd.Job) {
		g.set(int64(j.Progress.Done), int64(j.Progress.Total), j.Progress.Unit, phaseOf(j.Status), "")
	})
	g.finish(err != nil || job.Status != ragd.JobCompleted)
	d.wait()
	if err != nil {
		return err
	}
	return s.reportImport(Imported{Upload: enq, Job: job, Seconds: time.Since(start).Round(time.Millisecond).Seconds()}, file)
}

// reportImport prints how an import ended; a failed or cancelled job is
// ExitFailed.
func (s *session) reportImport(out Imported, file string) error {
	var res wire.ImportResult
	if out.Job.Status == ragd.JobCompleted && json.Unmarshal(out.Job.Result, &res) == nil {
		out.Result = &res
	}
	if s.globals.json {
		if err := s.emit(out); err != nil {
			return err
		}
	} else if out.Result != nil {
		s.printf("imported %s into %s (exported from %s): %d documents (%d replaced, %d skipped), %d chunks, %d images, %s\n",
			file, res.KBName, res.FromKBName, res.DocumentsImported, res.DocumentsReplaced, res.DocumentsSkipped,
			res.ChunksImported, res.ImagesImported, seconds(time.Duration(out.Seconds*float64(time.Second))))
	}
	switch out.Job.Status {
	case ragd.JobCompleted:
		return nil
	case ragd.JobCancelled:
		return &failedError{msg: fmt.Sprintf("import job %s was cancelled", out.Job.ID)}
	default:
		return &failedError{msg: fmt.Sprintf("import job %s failed: %s", out.Job.ID, out.Job.Error)}
	}
}

// gaugeWriter counts the bytes written through it on a gauge.
type gaugeWriter struct {
	w io.Writer
	g *gauge
	n int64
}

func (w *gaugeWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	w.n += int64(n)
	w.g.set(w.n, 0, "", "", "")
	return n, err
}

// gaugeReader counts the bytes read through it on a gauge.
type gaugeReader struct {
	r io.Reader
	g *gauge
	n int64
}

func (r *gaugeReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.n += int64(n)
	st := r.g.state()
	r.g.set(r.n, st.total, "", "", "")
	return n, err
}

// unwrapPath drops the operation and path from an *os.PathError, which
// the message names already.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
