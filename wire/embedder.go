package wire

import "ragd"

// EmbedderInfo describes one embedder.
type EmbedderInfo struct {
	Name      string `json:"name" jsonschema:"default (the embedder under embed) or a name under embedders"`
	Provider  string `json:"provider" jsonschema:"glove or openai"`
	Model     string `json:"model" jsonschema:"the model (the glove table's name for glove)"`
	Dimension int    `json:"dimension" jsonschema:"length of its vectors"`
}

// SwitchTarget is the embedder a switch moves to.
type SwitchTarget struct {
	Name      string `json:"name"`
	Model     string `json:"model"`
	Dimension int    `json:"dimension"`
}

// SwitchStatus is a switch under way.
type SwitchStatus struct {
	JobID    string         `json:"job_id"`
	To       SwitchTarget   `json:"to"`
	Status   ragd.JobStatus `json:"status" enum:"queued,active,retry,completed,failed,cancelled"`
	Phase    string         `json:"phase" jsonschema:"copying (re-embedding the stored chunks; the old embedder stays live), dropping (cut over; the old collection goes once every replica follows) or cancelling"`
	Progress ragd.Progress  `json:"progress" jsonschema:"chunks re-embedded of all"`
	// Error is the embedder's last failure while the copy waits to retry.
	Error string `json:"error" jsonschema:"the last embedder failure the copy is waiting out (empty while it runs)"`
}

// EmbedderStatus answers GET /embedder.
type EmbedderStatus struct {
	Live EmbedderInfo `json:"live" jsonschema:"the embedder searches and ingests use now"`
	// Switch is nil when no switch is under way.
	Switch *SwitchStatus `json:"switch" jsonschema:"the switch under way, or null"`
}

// SwitchRequest asks for a switch: POST /embedder/switch.
type SwitchRequest struct {
	To string `json:"to" jsonschema:"the embedder to switch to: default or a name under embedders"`
}

// SwitchAccepted answers POST /embedder/switch: the job that carries the
// switch out.
type SwitchAccepted struct {
	JobID  string         `json:"job_id"`
	Status ragd.JobStatus `json:"status" enum:"queued" jsonschema:"queued"`
	From   string         `json:"from" jsonschema:"the embedder live until the cutover"`
	To     string         `json:"to"`
}
