package mcpserver

import (
	"context"
	"encoding/json"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ragd"
)

// waitInto waits for out's job until it ends or the wait limit passes,
// sending notifications/progress when the client gave a progress token, and
// fills in the job's last state. The limit stays below common 60 s client
// timeouts, so a long job never hangs an agent: it gets the job_id back.
func (m *Server) waitInto(ctx context.Context, req *sdk.CallToolRequest, out *IngestOutput) {
	token := req.Params.GetProgressToken()
	notify := func(job *ragd.Job) {
		if token != nil && req.Session != nil && job.Progress.Total > 0 {
			_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token,
				Progress: float64(job.Progress.Done), Total: float64(job.Progress.Total), Message: string(job.Status) + ": " + job.Progress.Unit})
		}
	}
	job, err := m.svc.Library.WaitJob(ctx, out.JobID, m.cfg.WaitTimeout, notify)
	if err != nil || job == nil {
		return // the answer keeps the job_id to poll
	}
	fillFromJob(out, job)
}

// fillFromJob puts a job's state in out as a wait:true ingest answers it:
// status and progress, and once it ended its error, result and, for a
// document, its id. A task's result is rendered through here too
// (tasks.go), so it is the answer the same call with wait:true gives.
func fillFromJob(out *IngestOutput, job *ragd.Job) {
	out.Status = string(job.Status)
	p := job.Progress
	out.Progress = &p
	if !job.Status.Terminal() {
		return
	}
	out.Error = job.Error
	if len(job.Result) > 0 {
		_ = json.Unmarshal(job.Result, &out.Result)
	}
	if out.DocumentID == "" && job.Type == "ingest:document" {
		var r ragd.DocumentResult
		_ = json.Unmarshal(job.Result, &r)
		out.DocumentID = r.DocumentID
	}
}
