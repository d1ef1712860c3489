package client

import (
	"context"
	"net/http"
	"net/url"
	"ragd/wire"
	"strconv"

	"ragd"
)

// Job is a job's current state: GET /jobs/{id}.
func (c *Client) Job(ctx context.Context, id string) (*ragd.Job, error) {
	var out ragd.Job
	if _, err := c.call(ctx, request{method: http.MethodGet, path: "/jobs/" + url.PathEscape(id)}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListJobs is one page of jobs: GET /jobs.
func (c *Client) ListJobs(ctx context.Context, req wire.JobListRequest) (wire.JobList, error) {
	q := url.Values{}
	setQuery(q, "kb_name", req.KBName)
	setQuery(q, "status", string(req.Status))
	setInt(q, "limit", req.Limit)
	setInt(q, "offset", req.Offset)
	var out wire.JobList
	_, err := c.call(ctx, request{method: http.MethodGet, path: "/jobs", query: q}, &out)
	return out, err
}

// AllJobs pages through every job that matches req (its Limit and Offset
// are ignored) and returns them as one list.
func (c *Client) AllJobs(ctx context.Context, req wire.JobListRequest) (wire.JobList, error) {
	all := wire.JobList{Jobs: []ragd.Job{}}
	limit, offset := maxPage, 0
	req.Limit, req.Offset = &limit, &offset
	for {
		page, err := c.ListJobs(ctx, req)
		if err != nil {
			return wire.JobList{}, err
		}
		all.Jobs = append(all.Jobs, page.Jobs...)
		all.Total = page.Total
		if page.NextOffset == nil || *page.NextOffset <= offset {
			break
		}
		offset = *page.NextOffset
	}
	all.Count = len(all.Jobs)
	return all, nil
}

// CancelJob cancels a job that has not ended: POST /jobs/{id}/cancel. A job
// already ended is an *APIError with status 409.
func (c *Client) CancelJob(ctx context.Context, id string) (wire.CancelledJob, error) {
	var out wire.CancelledJob
	_, err := c.call(ctx, request{method: http.MethodPost, path: "/jobs/" + url.PathEscape(id) + "/cancel"}, &out)
	return out, err
}

// maxPage is the largest page the list endpoints serve.
const maxPage = 1000

func setQuery(q url.Values, key, value string) {
	if value != "" {
		q.Set(key, value)
	}
}

func setInt(q url.Values, key string, value *int) {
	if value != nil {
		q.Set(key, strconv.Itoa(*value))
	}
}
