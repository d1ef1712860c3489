package sources_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"ragd"
	"ragd/client"
	"ragd/internal/testkit/gitserver"
	"ragd/wire"
)

// A program adds, syncs, changes, lists and deletes a source through the
// typed client, with the wire types the server binds.
func TestClientKeepsASource(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewRepo(t, "client.git")
	repo.Write("a.md", "# Anchorage\n\nThe outer anchorage is sheltered from the west.\n")
	repo.Commit("first")
	url := gitserver.HTTP(t, repo)
	s := start(t)
	c, err := client.New(s.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	src, err := c.CreateSource(ctx, wire.SourceRequest{Kind: ragd.SourceGit, URL: url, Tags: []string{"pilot"}})
	if err != nil {
		t.Fatal(err)
	}
	e, err := c.SyncSource(ctx, src.ID, false)
	if err != nil || e.JobID == nil {
		t.Fatalf("SyncSource: %+v %v", e, err)
	}
	if job := s.WaitJob(t, *e.JobID, 60*time.Second); job.Status != ragd.JobCompleted {
		t.Fatalf("sync: %s %s", job.Status, job.Error)
	}
	every := "2h"
	if _, err := c.UpdateSource(ctx, src.ID, wire.SourcePatch{Every: &every}); err != nil {
		t.Fatal(err)
	}
	list, err := c.ListSources(ctx, "default")
	if err != nil || len(list.Sources) != 1 || list.Sources[0].Every != "2h" || list.Sources[0].NextSync == nil ||
		list.Sources[0].LastSync == nil || list.Sources[0].LastSync.Added != 1 {
		t.Fatalf("ListSources: %+v %v", list, err)
	}
	if del, err := c.DeleteSource(ctx, src.ID, false); err != nil || del.DocumentsDeleted != 1 {
		t.Fatalf("DeleteSource: %+v %v", del, err)
	}
	var apiErr *client.APIError
	if _, err := c.Source(ctx, src.ID); !errors.As(err, &apiErr) || apiErr.Status != 404 {
		t.Fatalf("Source after delete: %v", err)
	}
}
