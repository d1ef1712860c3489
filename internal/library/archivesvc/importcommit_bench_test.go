package archivesvc_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"ragd/internal/jobs/importjob"
	"ragd/internal/testkit/stack"
)

// redisCount counts the Redis round trips (a command alone or a pipeline
// or transaction) and the INCRs a client makes.
type redisCount struct{ trips, incrs atomic.Int64 }

func (c *redisCount) DialHook(next redis.DialHook) redis.DialHook { return next }

func (c *redisCount) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.trips.Add(1)
		c.incrs.Add(int64(countIncr(cmd)))
		return next(ctx, cmd)
	}
}

func (c *redisCount) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		c.trips.Add(1)
		for _, cmd := range cmds {
			c.incrs.Add(int64(countIncr(cmd)))
		}
		return next(ctx, cmds)
	}
}

func countIncr(cmd redis.Cmder) int {
	if strings.EqualFold(cmd.Name(), "incr") {
		return 1
	}
	return 0
}

// BenchmarkImportCommitRoundTrips imports an archive of small documents
// (one chunk each; RAGD_BENCH_IMPORT_DOCS of them, 1000 by default) into
// fresh namespaces, committing them in batches of DefaultCommitBatch and
// one by one (CommitBatch 1, as every import did before), interleaved in
// alternating order, and reports per document the Redis round trips, the
// INCRs and the wall time of each, and the ratios.
func BenchmarkImportCommitRoundTrips(b *testing.B) {
	docs := 1000
	if n, err := strconv.Atoi(os.Getenv("RAGD_BENCH_IMPORT_DOCS")); err == nil && n > 0 {
		docs = n
	}
	cfg := stack.Config(b)
	cfg.Data.Dir = b.TempDir()
	s := stack.Start(b, cfg, false)
	fill(b, s, "src", specTemplate(b, s)[:1], docs, false)
	var archive bytes.Buffer
	export(b, s, "src", &archive)
	data := archive.Bytes()
	count := &redisCount{}
	s.Redis.AddHook(count)
	batches := []int{importjob.DefaultCommitBatch, 1}
	var trips, incrs [2]int64
	var took [2]time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := range batches { // rotate the order every round
			j := (k + i) % len(batches)
			s.Imports.CommitBatch = batches[j]
			t0, i0, start := count.trips.Load(), count.incrs.Load(), time.Now()
			res := importArchive(b, s, fmt.Sprintf("import-%d-%d", batches[j], i), data)
			took[j] += time.Since(start)
			trips[j] += count.trips.Load() - t0
			incrs[j] += count.incrs.Load() - i0
			if res.DocumentsImported != docs {
				b.Fatalf("imported %d documents of %d", res.DocumentsImported, docs)
			}
		}
	}
	b.StopTimer()
	n := float64(docs * b.N)
	for j, name := range []string{"batched", "one_by_one"} {
		b.ReportMetric(float64(trips[j])/n, name+"_redis_trips/doc")
		b.ReportMetric(float64(incrs[j])/n, name+"_incr/doc")
		b.ReportMetric(took[j].Seconds()*1e6/n, name+"_µs/doc")
	}
	b.ReportMetric(float64(trips[1])/float64(trips[0]), "trips_ratio")
	b.ReportMetric(took[1].Seconds()/took[0].Seconds(), "time_ratio")
}
