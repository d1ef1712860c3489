package mcpserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ragd"
	"ragd/internal/library"
)

// MCP Tasks for the long tools (core_ingest, core_ingest_directory, the
// profile tools built on them, and core_sync_source): a task is ragd's job, its id the job id,
// so GET /jobs/{id}, the console and the CLI show the same thing. Nothing
// is kept beside the job records in Redis, so /mcp stays stateless and any
// replica answers for any task.
//
// The protocol is split at one seam, taskBackend: what a task is (this
// file) apart from how each protocol generation frames it on the wire
// (taskwire.go: 2025-11-25's tasks and the 2026-07-28
// io.modelcontextprotocol/tasks extension; taskcaps.go: the capability and
// the tools' execution.taskSupport they advertise). The go-sdk has no
// Tasks yet; when it ships them, its server calls a backend like this one
// and the two wire files go.

// Tasks protocol names and ragd's choices.
const (
	// tasksExtension is the 2026-07-28 extension's id, in capabilities.
	tasksExtension = "io.modelcontextprotocol/tasks"
	// relatedTaskKey is the _meta key tying a result to its task.
	relatedTaskKey = "io.modelcontextprotocol/related-task"
	// immediateResponseKey is CreateTaskResult's _meta text for the model.
	immediateResponseKey = "io.modelcontextprotocol/model-immediate-response"
	// taskPollInterval is the polling interval ragd suggests.
	taskPollInterval = 2 * time.Second
	// taskListPage is how many tasks one tasks/list page holds.
	taskListPage = 100
	// maxTaskCursor bounds the offset a tasks/list cursor may carry.
	maxTaskCursor = 10_000_000
)

// Task statuses, as both generations name them.
const (
	taskWorking   = "working"
	taskCompleted = "completed"
	taskFailed    = "failed"
	taskCancelled = "cancelled"
)

// taskState is one task as both generations report it: a job seen through
// the Tasks protocol.
type taskState struct {
	ID      string
	Status  string
	Message string
	Created time.Time
	Updated time.Time
	// TTL is how long the job stays readable (jobs.retention).
	TTL time.Duration
	Job *ragd.Job
}

// taskBackend is the seam between ragd's jobs and the Tasks protocol: each
// method takes a context carrying the caller's principal and decides
// nothing about the wire. Every read and cancel goes through the
// library's job services, so a task is visible exactly where its job is
// (namespace limits, ragd.Audience.SeesJobsOf); any other is not found,
// as an unknown id is.
type taskBackend interface {
	// start runs a task-augmented call of a task tool; with no job to
	// follow (bad input, content already indexed, a dry run) it returns
	// the call's result instead of a task.
	start(ctx context.Context, req *sdk.CallToolRequest) (*taskState, *sdk.CallToolResult, error)
	get(ctx context.Context, id string) (taskState, error)
	// result waits until the task ends (at most its TTL or ctx) and returns
	// the CallToolResult the same call with wait:true returns.
	result(ctx context.Context, id string) (taskState, *sdk.CallToolResult, error)
	// list returns a page of the caller's tasks, newest first, and the
	// cursor of the next page ("" on the last).
	list(ctx context.Context, cursor string) ([]taskState, string, error)
	// cancel cancels the task's job; an ended task is a conflict.
	cancel(ctx context.Context, id string) (taskState, error)
}

// jobTasks is taskBackend over ragd's jobs.
type jobTasks struct {
	lib Librarian
	// tools are the task tools' handlers, by tool name.
	tools     map[string]sdk.ToolHandler
	retention time.Duration
}

var _ taskBackend = (*jobTasks)(nil)

// supports reports whether the tool named may run as a task.
func (t *jobTasks) supports(name string) bool { _, ok := t.tools[name]; return ok }

func (t *jobTasks) start(ctx context.Context, req *sdk.CallToolRequest) (*taskState, *sdk.CallToolResult, error) {
	h, ok := t.tools[req.Params.Name]
	if !ok {
		return nil, nil, fmt.Errorf("tool %q does not support task execution", req.Params.Name)
	}
	call := *req
	params := *req.Params
	params.Arguments = withoutWait(params.Arguments)
	call.Params = &params
	res, err := h(ctx, &call)
	if err != nil || res == nil || res.IsError {
		return nil, res, err
	}
	var out struct {
		JobID string `json:"job_id"`
	}
	if raw, ok := res.StructuredContent.(json.RawMessage); !ok || json.Unmarshal(raw, &out) != nil || out.JobID == "" {
		return nil, res, nil // nothing to follow: the call's answer is the result
	}
	job, err := t.lib.Job(callerContext(ctx, req.Extra), out.JobID)
	if err != nil {
		return nil, nil, err
	}
	s := t.state(job)
	return &s, nil, nil
}

// withoutWait is a call's arguments without wait: a task returns at once
// and is waited for through tasks/get and tasks/result.
func withoutWait(args json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil || m == nil {
		return args
	}
	if _, ok := m["wait"]; !ok {
		return args
	}
	delete(m, "wait")
	b, err := json.Marshal(m)
	if err != nil {
		return args
	}
	return b
}

// notATask refuses, as an unknown id, a directory's file job: a task is
// what tasks/list can list, and it lists jobs as GET /jobs does, a
// directory as one.
func notATask(id string) error {
	if library.IsFileJob(id) {
		return ragd.NotFound("no task %s: a directory's file is followed through the directory's task", id)
	}
	return nil
}

func (t *jobTasks) get(ctx context.Context, id string) (taskState, error) {
	if err := notATask(id); err != nil {
		return taskState{}, err
	}
	job, err := t.lib.Job(ctx, id)
	if err != nil {
		return taskState{}, err
	}
	return t.state(job), nil
}

func (t *jobTasks) result(ctx context.Context, id string) (taskState, *sdk.CallToolResult, error) {
	if err := notATask(id); err != nil {
		return taskState{}, nil, err
	}
	job, err := t.lib.WaitJob(ctx, id, t.retention, nil)
	if err != nil {
		return taskState{}, nil, err
	}
	s := t.state(job)
	res, err := taskResult(job)
	return s, res, err
}

// taskResult is the CallToolResult of an ended job: the answer the same
// call with wait:true gives (fillFromJob, withOutput), an error result
// when the job failed, whose error is GET /jobs/{id}'s.
func taskResult(job *ragd.Job) (*sdk.CallToolResult, error) {
	out := IngestOutput{JobID: job.ID}
	fillFromJob(&out, job)
	res, err := withOutput(nil, out)
	if err != nil {
		return nil, err
	}
	res.IsError = job.Status == ragd.JobFailed
	return res, nil
}

func (t *jobTasks) list(ctx context.Context, cursor string) ([]taskState, string, error) {
	offset, err := decodeTaskCursor(cursor)
	if err != nil {
		return nil, "", err
	}
	limit := taskListPage
	page, err := t.lib.ListJobs(ctx, library.JobListRequest{Limit: &limit, Offset: &offset})
	if err != nil {
		return nil, "", err
	}
	tasks := make([]taskState, len(page.Jobs))
	for i := range page.Jobs {
		tasks[i] = t.state(&page.Jobs[i])
	}
	next := ""
	if page.NextOffset != nil && *page.NextOffset <= maxTaskCursor {
		next = encodeTaskCursor(*page.NextOffset)
	}
	return tasks, next, nil
}

func (t *jobTasks) cancel(ctx context.Context, id string) (taskState, error) {
	if err := notATask(id); err != nil {
		return taskState{}, err
	}
	if _, err := t.lib.CancelJob(ctx, library.CancelRequest{JobID: id}); err != nil {
		return taskState{}, err
	}
	return t.get(ctx, id)
}

// state is the task a job is: queued and running jobs are working, the
// rest keep their status; statusMessage says how far it got or why it
// failed, in GET /jobs/{id}'s words.
func (t *jobTasks) state(job *ragd.Job) taskState {
	s := taskState{ID: job.ID, Created: job.CreatedAt, Updated: job.CreatedAt, TTL: t.retention, Job: job}
	if job.CompletedAt != nil {
		s.Updated = *job.CompletedAt
	}
	switch job.Status {
	case ragd.JobCompleted:
		s.Status = taskCompleted
	case ragd.JobFailed:
		s.Status = taskFailed
	case ragd.JobCancelled:
		s.Status = taskCancelled
	default:
		s.Status = taskWorking
	}
	s.Message = string(job.Status)
	if p := job.Progress; p.Total > 0 {
		s.Message = fmt.Sprintf("%s: %d of %d %s done", job.Status, p.Done, p.Total, p.Unit)
	}
	if job.Status == ragd.JobFailed && job.Error != "" {
		s.Message = job.Error
	}
	var r ragd.DirectoryResult // a cancelled file is done in the progress
	if job.Status == ragd.JobCancelled && json.Unmarshal(job.Result, &r) == nil && r.FilesCancelled > 0 {
		s.Message = fmt.Sprintf("cancelled: %d of %d files indexed, %d cancelled", r.FilesIndexed, r.FilesTotal, r.FilesCancelled)
	}
	return s
}

// A tasks/list cursor is the offset of the page it starts, opaque to the
// client.
func encodeTaskCursor(offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte("jobs:" + strconv.Itoa(offset)))
}

func decodeTaskCursor(cursor string) (int, error) {
	if cursor == "" {
		return 0, nil
	}
	bad := ragd.Invalid("cursor", "value_error", "invalid tasks/list cursor")
	if len(cursor) > 64 {
		return 0, bad
	}
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || len(raw) < len("jobs:") || string(raw[:5]) != "jobs:" {
		return 0, bad
	}
	n, err := strconv.Atoi(string(raw[5:]))
	if err != nil || n < 0 || n > maxTaskCursor {
		return 0, bad
	}
	return n, nil
}
