package mcpserver

import (
	"encoding/json"
	"testing"

	"ragd"
)

// A task's status message says how far its job got: a cancelled
// directory counts the files indexed and those cancelled unread, not its
// progress, which counts a cancelled file as done.
func TestTaskStatusMessage(t *testing.T) {
	dir := func(r ragd.DirectoryResult) json.RawMessage {
		b, _ := json.Marshal(r)
		return b
	}
	files := ragd.Progress{Done: 1000, Total: 1000, Unit: "files"}
	cases := []struct {
		job  ragd.Job
		want string
	}{
		{ragd.Job{Status: ragd.JobQueued}, "queued"},
		{ragd.Job{Status: ragd.JobActive, Progress: ragd.Progress{Done: 35, Total: 60, Unit: "files"}}, "active: 35 of 60 files done"},
		{ragd.Job{Status: ragd.JobCompleted, Progress: files}, "completed: 1000 of 1000 files done"},
		{ragd.Job{Status: ragd.JobFailed, Progress: files, Error: "the directory could not be read"}, "the directory could not be read"},
		{ragd.Job{Status: ragd.JobCancelled, Progress: files,
			Result: dir(ragd.DirectoryResult{FilesTotal: 1000, FilesIndexed: 253, FilesCancelled: 747})},
			"cancelled: 253 of 1000 files indexed, 747 cancelled"},
		{ragd.Job{Status: ragd.JobCancelled}, "cancelled"},
	}
	tasks := &jobTasks{}
	for _, c := range cases {
		if got := tasks.state(&c.job).Message; got != c.want {
			t.Errorf("%s job %+v: message %q, want %q", c.job.Status, c.job.Progress, got, c.want)
		}
	}
}
