package mcpserver

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ragd"
	"ragd/internal/library/sourcesvc"
)

// sourceTools are core_list_sources and core_sync_source, offered when
// the server keeps sources; a sync also runs as an MCP Task (its job).
func (m *Server) sourceTools() []tool {
	return []tool{
		{name: "core_list_sources", annotations: sdk.ToolAnnotations{Title: "List synced sources", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: no()},
			description: "The sources (Git repositories, websites, S3 buckets, server directories) kept in sync with the knowledge bases you may use: url, ref, schedule (every), " +
				"the last sync (when, outcome, counts, commit) and the next one. Sync one with core_sync_source.",
			register: func(s toolSet, t *sdk.Tool, p preset) { addTool(s, t, guarded(m, m.listSources(p))) }},
		{name: "core_sync_source", annotations: sdk.ToolAnnotations{Title: "Sync a source now", DestructiveHint: yes(), IdempotentHint: true, OpenWorldHint: yes()},
			description: "Sync a source now: its new and changed files are indexed and the documents of deleted files removed. " +
				"Returns a job_id at once; poll core_job_status (files done/total; result files_added, files_changed, files_unchanged, documents_deleted). " +
				"A sync already running is returned instead of a second. dry_run answers with the plan and changes nothing.",
			register: func(s toolSet, t *sdk.Tool, p preset) { addTool(s, t, guarded(m, m.syncSource)) }, tasks: true},
	}
}

// SourceListInput is core_list_sources's input.
type SourceListInput struct {
	KBName string `json:"kb_name,omitempty" jsonschema:"only this namespace's sources (default: every namespace you may use)"`
}

// SyncSourceInput is core_sync_source's input: the source and the sync
// request REST takes in its body.
type SyncSourceInput struct {
	SourceID string `json:"source_id" jsonschema:"the source to sync (core_list_sources lists them)"`
	sourcesvc.SyncSourceRequest
}

// SyncSourceOutput is core_sync_source's result. Run as an MCP Task, the
// call's result is the finished job's (tasks.go taskResult), the shape of
// core_ingest_directory's: so the job's fields are here too.
type SyncSourceOutput struct {
	JobID  string `json:"job_id,omitempty" jsonschema:"poll it with core_job_status; empty for a dry_run"`
	Status string `json:"status" jsonschema:"queued, active or retry; planned for a dry_run; as a task's result completed, failed or cancelled"`
	// DedupHit is core_ingest_directory's, always false for a sync.
	DedupHit bool                  `json:"dedup_hit,omitempty" jsonschema:"always false: a sync reads what changed"`
	Progress *ragd.Progress        `json:"progress,omitempty" jsonschema:"as a task's result: how far the sync got (files)"`
	Result   any                   `json:"result,omitempty" jsonschema:"as a task's result, once completed: files added, changed, unchanged, documents deleted"`
	Error    string                `json:"error,omitempty" jsonschema:"as a task's result, if the sync failed: why"`
	Plan     *sourcesvc.SourcePlan `json:"plan,omitempty" jsonschema:"with dry_run: what the sync would do; nothing was changed"`
}

func (m *Server) listSources(p preset) sdk.ToolHandlerFor[SourceListInput, sourcesvc.SourceList] {
	return func(ctx context.Context, _ *sdk.CallToolRequest, in SourceListInput) (*sdk.CallToolResult, sourcesvc.SourceList, error) {
		list, err := m.svc.Sources.List(ctx, p.kb(in.KBName))
		return nil, list, err
	}
}

func (m *Server) syncSource(ctx context.Context, _ *sdk.CallToolRequest, in SyncSourceInput) (*sdk.CallToolResult, SyncSourceOutput, error) {
	e, plan, err := m.svc.Sources.Sync(ctx, in.SourceID, in.SyncSourceRequest)
	if err != nil {
		return nil, SyncSourceOutput{}, err
	}
	if plan != nil {
		return nil, SyncSourceOutput{Status: "planned", Plan: plan}, nil
	}
	out := SyncSourceOutput{Status: string(e.Status)}
	if e.JobID != nil {
		out.JobID = *e.JobID
	}
	return nil, out, nil
}
