package procbench

import (
	"context"
	"fmt"
	"io/fs"
	"net/http"

	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate/entities/models"

	"ragd"
	"ragd/internal/testkit/testenv"
)

// ingestFiles is how many real Markdown files the small-file corpus holds.
const ingestFiles = 400

// BenchmarkProcessDirectoryIngest measures a directory ingest of 400 real
// Markdown files (READMEs first) from the module cache (small files, ~15 chunks each) by ragd
// running as its own process — POST /tools/rag_index_directory until the
// job completes, a fresh namespace each round — against the floor: the
// same objects (ragd's own chunks with their vectors, read back) written
// by a raw client in batches of 100 over gRPC into a collection of the
// same schema, rounds alternating. Target: ragd ≥ 0.8× the floor's
// chunks/s. RAGD_BENCH_PROFILE=FILE writes ragd's CPU profile of the run.
func BenchmarkProcessDirectoryIngest(b *testing.B) {
	r := startRagd(b, nil)
	corpus := filepath.Join(r.Root, "readmes")
	for i, src := range readmes(b, ingestFiles) {
		testenv.CopyFile(b, src, filepath.Join(corpus, fmt.Sprintf("%03d-%s.md", i, filepath.Base(filepath.Dir(src)))))
	}
	raw := rawClient(b)
	floor := floorCollection(b, raw, r.Config.Weaviate.Collection)
	client := &http.Client{}
	ctx := context.Background()
	var ratios []float64
	for round := range max(b.N, 3) {
		kb := fmt.Sprintf("r%d", round)
		start := time.Now()
		var job struct {
			JobID string `json:"job_id"`
		}
		post(b, client, r.URL+"/tools/rag_index_directory", map[string]any{"directory_path": corpus, "kb_name": kb}, &job)
		waitJob(b, client, r.URL, job.JobID)
		ragdTime := time.Since(start)

		objects := readBack(b, raw, r.Config.Weaviate.Collection, kb, floor)
		start = time.Now()
		for batch := range slices.Chunk(objects, 100) {
			resp, err := raw.Batch().ObjectsBatcher().WithObjects(batch...).Do(ctx)
			if err != nil {
				b.Fatal(err)
			}
			for _, o := range resp {
				if o.Result != nil && o.Result.Errors != nil {
					b.Fatalf("floor import: %s", o.Result.Errors.Error[0].Message)
				}
			}
		}
		floorTime := time.Since(start)
		ragdRate, floorRate := float64(len(objects))/ragdTime.Seconds(), float64(len(objects))/floorTime.Seconds()
		ratios = append(ratios, ragdRate/floorRate)
		fmt.Printf("directory ingest, %d files, %d chunks, round %d: ragd %.0f chunks/s (%s), raw batched import %.0f chunks/s (%s), ratio %.2f\n",
			ingestFiles, len(objects), round, ragdRate, ragdTime.Round(time.Millisecond), floorRate, floorTime.Round(time.Millisecond), ragdRate/floorRate)
	}
	fmt.Printf("directory ingest of small files: ragd / raw batched import %s (target ≥ 0.80)\n", spread(ratios))
	b.ReportMetric(median(ratios), "ingest-ratio")
}

// readmes returns n Markdown files of 2–64 KB from the module cache,
// READMEs first, in a fixed order.
func readmes(b *testing.B, n int) []string {
	found := markdownFiles(b)
	if len(found) < n {
		b.Fatalf("only %d Markdown files in the module cache (run go mod download)", len(found))
	}
	return found[:n]
}

// markdownFiles are the Markdown files of 2–64 KB in the module cache,
// READMEs first, in a fixed order.
func markdownFiles(b *testing.B) []string {
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		b.Fatal(err)
	}
	var readmes, others []string
	_ = filepath.WalkDir(strings.TrimSpace(string(out)), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.EqualFold(filepath.Ext(p), ".md") || strings.Contains(p, "/cache/") {
			return nil
		}
		if fi, err := d.Info(); err == nil && fi.Size() > 2<<10 && fi.Size() < 64<<10 {
			if strings.EqualFold(d.Name(), "README.md") {
				readmes = append(readmes, p)
			} else {
				others = append(others, p)
			}
		}
		return nil
	})
	slices.Sort(readmes)
	slices.Sort(others)
	return append(readmes, others...)
}

// pollEvery is how often waitJob asks: as often as ragd's own wait:true
// does (library.WaitJob), so that reading a directory's files while it
// runs costs what an agent's wait would.
const pollEvery = 100 * time.Millisecond

// waitJob polls a job until it completes.
func waitJob(b *testing.B, client *http.Client, base, id string) {
	waitJobEvery(b, client, base, id, pollEvery)
}

// waitJobEvery polls a job every so often until it completes, and
// returns its result.
func waitJobEvery(b *testing.B, client *http.Client, base, id string, every time.Duration) ragd.DirectoryResult {
	deadline := time.Now().Add(10 * time.Minute)
	for time.Now().Before(deadline) {
		var job ragd.Job
		resp, err := client.Get(base + "/jobs/" + id)
		if err != nil {
			b.Fatal(err)
		}
		err = decodeJSON(resp, &job)
		if err != nil {
			b.Fatal(err)
		}
		switch job.Status {
		case ragd.JobCompleted:
			var res ragd.DirectoryResult
			if decodeRaw(job.Result, &res) == nil && res.FilesFailed > 0 {
				b.Fatalf("job %s: %d files failed", id, res.FilesFailed)
			}
			return res
		case ragd.JobFailed, ragd.JobCancelled:
			b.Fatalf("job %s %s: %s", id, job.Status, job.Error)
		}
		time.Sleep(every)
	}
	b.Fatalf("job %s did not end", id)
	return ragd.DirectoryResult{}
}

// floorCollection creates a collection with the schema of ragd's, for the
// floor's import, dropped when b ends.
func floorCollection(b *testing.B, raw *weaviate.Client, like string) string {
	ctx := context.Background()
	class, err := raw.Schema().ClassGetter().WithClassName(like).Do(ctx)
	if err != nil {
		b.Fatal(err)
	}
	class.Class = like + "Floor"
	class.ShardingConfig = nil // a multi-tenant collection may not name both
	if err := raw.Schema().ClassCreator().WithClass(class).Do(ctx); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = raw.Schema().ClassDeleter().WithClassName(class.Class).Do(context.Background()) })
	return class.Class
}

// readBack reads every object of the namespace with its vector, as objects
// of the floor collection in a tenant of the same name.
func readBack(b *testing.B, raw *weaviate.Client, collection, tenant, floor string) []*models.Object {
	ctx := context.Background()
	var out []*models.Object
	after := ""
	for {
		req := raw.Data().ObjectsGetter().WithClassName(collection).WithTenant(tenant).WithVector().WithLimit(500)
		if after != "" {
			req = req.WithAfter(after)
		}
		page, err := req.Do(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if len(page) == 0 {
			return out
		}
		for _, o := range page {
			out = append(out, &models.Object{Class: floor, ID: o.ID, Tenant: tenant, Vector: o.Vector, Properties: typed(o.Properties)})
		}
		after = string(page[len(page)-1].ID)
	}
}

// typed gives properties read over REST (JSON's arrays and numbers) the
// Go types the gRPC batch takes: text arrays as []string, whole numbers
// as int64.
func typed(p any) map[string]any {
	in, _ := p.(map[string]any)
	out := make(map[string]any, len(in))
	for k, v := range in {
		switch v := v.(type) {
		case []any:
			ss := make([]string, 0, len(v))
			for _, e := range v {
				if s, ok := e.(string); ok {
					ss = append(ss, s)
				}
			}
			out[k] = ss
		case float64:
			if v == float64(int64(v)) {
				out[k] = int64(v)
			} else {
				out[k] = v
			}
		default:
			out[k] = v
		}
	}
	return out
}
