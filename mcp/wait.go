package mcp

import (
	"context"
	"encoding/json"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ragd"
)

// waitInto waits for out's job until it ends or the wait limit passes,
// sending notifications/progress when the client gave a progress token, and
// fills in the job's last state. The limit stays below common 60 s client
// timeouts, so a long job never hangs an agent: it gets the job_id back.
func (m *Server) waitInto(ctx context.Context, req *sdk.CallToolRequest, out *IngestOutput) {
	token := req.Params.GetProgressToken()
	ctx, cancel := context.WithTimeout(ctx, m.cfg.WaitTimeout)
	defer cancel()
	var last ragd.Progress
	var lastStatus ragd.JobStatus
	for {
		job, err := m.svc.Job(ctx, out.JobID)
		if err == nil {
			out.Status = string(job.Status)
			p := job.Progress
			out.Progress = &p
			if token != nil && req.Session != nil && (p != last || job.Status != lastStatus) && p.Total > 0 {
				last, lastStatus = p, job.Status
				_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token,
					Progress: float64(p.Done), Total: float64(p.Total), Message: string(job.Status) + ": " + p.Unit})
			}
			if job.Status.Terminal() {
				out.Error = job.Error
				if len(job.Result) > 0 {
					_ = json.Unmarshal(job.Result, &out.Result)
				}
				if out.DocumentID == "" && job.Type == "ingest:document" {
					var r ragd.DocumentResult
					_ = json.Unmarshal(job.Result, &r)
					out.DocumentID = r.DocumentID
				}
				return
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(m.cfg.PollInterval):
		}
	}
}
