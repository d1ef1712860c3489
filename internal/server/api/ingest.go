package api

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"ragd"
	"ragd/internal/library"
)

// indexBody is POST /tools/rag_index.
type indexBody struct {
	library.IndexRequest
	Wait bool `json:"wait"`
}

// indexed is the wait:true answer, in the seed API's shape.
type indexed struct {
	Status        string `json:"status"`
	Message       string `json:"message"`
	ChunksIndexed int    `json:"chunks_indexed"`
	FilePath      string `json:"file_path,omitempty"`
	URL           string `json:"url,omitempty"`
	DirectoryPath string `json:"directory_path,omitempty"`
	JobID         string `json:"job_id,omitempty"`
	DocumentID    string `json:"document_id,omitempty"`
	DedupHit      bool   `json:"dedup_hit"`
	FilesTotal    *int   `json:"files_total,omitempty"`
	FilesFailed   *int   `json:"files_failed,omitempty"`
	*Sync
}

// Sync is what a finished sync skipped and deleted.
type Sync struct {
	FilesUnchanged   int `json:"files_unchanged"`
	DocumentsDeleted int `json:"documents_deleted"`
}

func syncCounts(sync bool, res ragd.DirectoryResult) *Sync {
	if !sync {
		return nil
	}
	return &Sync{FilesUnchanged: res.FilesUnchanged, DocumentsDeleted: res.DocumentsDeleted}
}

func (h *handlers) index(c echo.Context) error {
	var body indexBody
	if err := bind(c, &body); err != nil {
		return err
	}
	enq, err := h.svc.Library.Index(c.Request().Context(), body.IndexRequest)
	if err != nil {
		return err
	}
	if enq.DedupHit {
		if !body.Wait {
			return c.JSON(http.StatusOK, enq)
		}
		return c.JSON(http.StatusOK, indexed{Status: "success", Message: "already indexed: content unchanged",
			ChunksIndexed: enq.Existing.Chunks, FilePath: body.FilePath, URL: body.URL,
			DocumentID: enq.DocumentID, DedupHit: true})
	}
	job, err := h.await(c, enq, body.Wait)
	if job == nil || err != nil {
		return err
	}
	var res ragd.DocumentResult
	_ = json.Unmarshal(job.Result, &res)
	msg := "Successfully indexed " + enq.Source
	if res.DedupHit {
		msg = "already indexed: content unchanged"
	}
	return c.JSON(http.StatusOK, indexed{Status: "success", Message: msg, ChunksIndexed: res.ChunksIndexed,
		FilePath: body.FilePath, URL: body.URL, JobID: job.ID, DocumentID: res.DocumentID, DedupHit: res.DedupHit})
}

func (h *handlers) indexDirectory(c echo.Context) error {
	var body library.DirectoryRequest
	if err := bind(c, &body); err != nil {
		return err
	}
	if body.DryRun {
		plan, err := h.svc.Library.PlanDirectory(c.Request().Context(), body)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, plan)
	}
	enq, err := h.svc.Library.IndexDirectory(c.Request().Context(), body)
	if err != nil {
		return err
	}
	job, err := h.await(c, enq, body.Wait)
	if job == nil || err != nil {
		return err
	}
	var res ragd.DirectoryResult
	_ = json.Unmarshal(job.Result, &res)
	return c.JSON(http.StatusOK, indexed{Status: "success",
		Message:       fmt.Sprintf("Indexed %d of %d files from %s", res.FilesIndexed, res.FilesTotal, enq.Source),
		ChunksIndexed: res.ChunksIndexed, DirectoryPath: body.DirectoryPath, JobID: job.ID,
		FilesTotal: &res.FilesTotal, FilesFailed: &res.FilesFailed, Sync: syncCounts(body.Sync, res)})
}

// await answers 202 with the job reference unless the request waits; then it
// waits for the job and returns it completed, or answers 202 with its current
// status when the wait limit passes, or the failure. A nil job means the
// response is written.
func (h *handlers) await(c echo.Context, enq library.Enqueued, wait bool) (*ragd.Job, error) {
	if !wait {
		return nil, c.JSON(http.StatusAccepted, enq)
	}
	job, err := h.svc.Library.WaitJob(c.Request().Context(), *enq.JobID, 0, nil)
	if err != nil {
		return nil, err
	}
	if !job.Status.Terminal() {
		enq.Status = job.Status
		return nil, c.JSON(http.StatusAccepted, enq)
	}
	if job.Status == ragd.JobFailed {
		return nil, failed(job)
	}
	if job.Status == ragd.JobCancelled {
		return nil, ragd.Conflict("job %s was cancelled", job.ID)
	}
	return job, nil
}

// failed answers a wait:true request whose job failed. Within the wait,
// a permanent failure (a corrupt or unreadable source) ends a job, a 422;
// transient ones are retried, and a job that failed for a dependency
// anyway (its retries spent on an open breaker) is the 503 with
// Retry-After a direct call to it would be, naming the dependency only.
func failed(job *ragd.Job) error {
	if dep := ragd.UnavailableIn(job.Error); dep != "" {
		return &ragd.Error{Kind: ragd.KindUnavailable, RetryAfterSeconds: unavailableRetryAfter,
			Message: fmt.Sprintf("job %s failed: %s; index it again once it is back", job.ID, dep)}
	}
	return &ragd.Error{Kind: ragd.KindInvalid, Message: fmt.Sprintf("job %s failed: %s", job.ID, job.Error)}
}

// unavailableRetryAfter is the Retry-After of a job that failed for a
// dependency: its job no longer knows the breaker's own hint.
const unavailableRetryAfter = 5

func (h *handlers) job(c echo.Context) error {
	limit, offset, err := queryPage(c)
	if err != nil {
		return err
	}
	job, err := h.svc.Library.JobPage(c.Request().Context(), c.Param("id"), limit, offset)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, job)
}
