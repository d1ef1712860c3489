package worker_test

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/hibiken/asynq"

	"ragd"
	"ragd/internal/jobs"
	"ragd/internal/platform/keyspace"
	"ragd/internal/testkit/stack"
)

// textKey is where the queue holds job id's inline text.
func textKey(s *stack.Stack, id string) string {
	return keyspace.New(s.Config.Redis.KeyPrefix).Jobs(s.Queue.Name()).Text(id)
}

// An inline text is held outside its task while its job runs, kept for a
// retry and dropped when the job ends: the task Asynq keeps for the
// retention carries no text.
func TestHeldTextFollowsItsJob(t *testing.T) {
	t.Parallel()
	fake := &fakeEmbeddings{dim: 16}
	fake.down.Store(1) // the first attempt fails: the embedder is down
	root := t.TempDir()
	s := stack.Start(t, slowEmbedderConfig(t, fake, root), true)
	text := "# Tide tables\n\nThe harbour master posts the tide tables at the quay every Sunday " + strings.Repeat("and at dawn ", 40) + ".\n"
	r := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"text": text, "kb_name": "held"})
	id, _ := r.JSON["job_id"].(string)
	if r.Status != http.StatusAccepted || id == "" {
		t.Fatalf("index: %d %s", r.Status, r.Body)
	}
	ctx := context.Background()
	info, err := s.Queue.Inspector().GetTaskInfo(s.Queue.Name(), id)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(info.Payload), "Tide tables") {
		t.Fatalf("the task's payload holds the text: %s", info.Payload)
	}
	waitJobUntil(t, s, id, "waited to retry", func(j ragd.Job) bool { return j.Status == ragd.JobRetry })
	if held, err := s.Redis.Get(ctx, textKey(s, id)).Result(); err != nil || held != text {
		t.Fatalf("a job waiting to retry lost its text: %q %v", held, err)
	}
	fake.down.Store(math.MaxInt64) // the embedder is back
	if err := s.Queue.Inspector().RunTask(s.Queue.Name(), id); err != nil {
		t.Fatal(err)
	}
	job := waitJobUntil(t, s, id, "completed", func(j ragd.Job) bool { return j.Status == ragd.JobCompleted })
	if n, err := s.Redis.Exists(ctx, textKey(s, id)).Result(); err != nil || n != 0 {
		t.Fatalf("the completed job's text is still held (%d, %v)", n, err)
	}
	r = s.Do(t, http.MethodPost, "/tools/rag_search", map[string]any{"query": "tide tables quay", "kb_name": "held", "mode": "keyword"})
	if !strings.Contains(string(r.Body), "harbour master") {
		t.Fatalf("the indexed text is not found (%+v): %s", job, r.Body)
	}
}

// A job whose text is gone when it runs ends as a dedup hit when its
// document is indexed (an earlier run indexed it, then its worker died
// before Asynq heard), and fails, saying why, when it is not; a cancelled
// job that never ran drops its text at once.
func TestJobWithoutItsText(t *testing.T) {
	t.Parallel()
	s := stack.Start(t, stack.Config(t, t.TempDir()), false)
	ctx := context.Background()
	enqueue := func(text string) string {
		r := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"text": text, "kb_name": "gone"})
		id, _ := r.JSON["job_id"].(string)
		if r.Status != http.StatusAccepted || id == "" {
			t.Fatalf("index: %d %s", r.Status, r.Body)
		}
		return id
	}
	cancelled := enqueue("# Cancelled\n\nA note nobody will read.\n")
	if r := s.Do(t, http.MethodPost, "/jobs/"+cancelled+"/cancel", nil); r.Status != 200 {
		t.Fatalf("cancel: %d %s", r.Status, r.Body)
	}
	if n, _ := s.Redis.Exists(ctx, textKey(s, cancelled)).Result(); n != 0 {
		t.Fatal("a cancelled job that never ran still holds its text")
	}

	indexed := enqueue("# Buoys\n\nRed buoys mark the port side of the channel.\n")
	lost := enqueue("# Lights\n\nThe lighthouse flashes twice every ten seconds.\n")
	held, err := s.Redis.Get(ctx, textKey(s, indexed)).Result()
	if err != nil {
		t.Fatal(err)
	}
	var pl jobs.DocumentPayload
	info, err := s.Queue.Inspector().GetTaskInfo(s.Queue.Name(), indexed)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(info.Payload, &pl); err != nil {
		t.Fatal(err)
	}
	pl.Text, pl.TextHeld = held, false
	if _, err := s.Pipeline.IndexDocument(ctx, pl, jobs.NewReporter(asynq.NewTask(jobs.TypeIngestDocument, nil))); err != nil { // the earlier run
		t.Fatal(err)
	}
	s.Redis.Del(ctx, textKey(s, indexed), textKey(s, lost))
	s.StartWorker(t)
	job := waitJobUntil(t, s, indexed, "ended", func(j ragd.Job) bool { return j.Status.Terminal() })
	var res ragd.DocumentResult
	if job.Status != ragd.JobCompleted || json.Unmarshal(job.Result, &res) != nil || !res.DedupHit {
		t.Fatalf("the job whose document was indexed: %+v", job)
	}
	job = waitJobUntil(t, s, lost, "ended", func(j ragd.Job) bool { return j.Status.Terminal() })
	if job.Status != ragd.JobFailed || !strings.Contains(job.Error, "no longer held") || job.Retried != 0 {
		t.Fatalf("the job whose text is lost: %+v", job)
	}
}

// A job that fails for good (here past ingest.max_document_chunks, which
// is not retried) drops its text with it: a refused text does not stay in
// Redis for jobs.TextHold.
func TestFailedJobDropsItsText(t *testing.T) {
	t.Parallel()
	cfg := stack.Config(t)
	cfg.Ingest.MaxDocumentChunks = 2
	s := stack.Start(t, cfg, true)
	text := "# Harbour\n\n" + strings.Repeat("The lighthouse keeper logs the tide at the quay. ", 2000)
	r := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"text": text, "kb_name": "held"})
	id, _ := r.JSON["job_id"].(string)
	if r.Status != http.StatusAccepted || id == "" {
		t.Fatalf("index: %d %s", r.Status, r.Body)
	}
	job := waitJobUntil(t, s, id, "failed", func(j ragd.Job) bool { return j.Status.Terminal() })
	if job.Status != ragd.JobFailed || !strings.Contains(job.Error, "max_document_chunks") {
		t.Fatalf("a text past max_document_chunks: %+v", job)
	}
	if n, err := s.Redis.Exists(context.Background(), textKey(s, id)).Result(); err != nil || n != 0 {
		t.Fatalf("the failed job's text is still held (%d, %v)", n, err)
	}
}
