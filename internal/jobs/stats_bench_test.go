package jobs

import (
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"ragd"
)

// statsBenchJobs is how many retained jobs BenchmarkStatsRetained seeds.
const statsBenchJobs = 100_000

// BenchmarkStatsRetained measures Queue.Stats with statsBenchJobs
// top-level jobs retained in one namespace (a mix of completed, pending,
// active and archived tasks, a tenth cancelled), seeded by direct Redis
// writes of their index entries, viewers and task states. It reports the
// Redis round trips of one call (round-trips/op) beside ns/op, for an
// operator (every job) and for a limited audience (one HMGET of the
// askers' audiences per batch on top).
func BenchmarkStatsRetained(b *testing.B) {
	q := testQueue(b)
	eng := ragd.ViewerAudience(&[]string{"eng"})
	seedRetained(b, q, "bench", statsBenchJobs, eng)
	trips := &roundTrips{}
	q.rdb.(*redis.Client).AddHook(trips)
	for _, c := range []struct {
		name string
		aud  ragd.Audience
	}{{"operator", ragd.EveryDocument()}, {"limited", eng}} {
		b.Run(c.name, func(b *testing.B) {
			ctx := b.Context()
			if _, err := q.Stats(ctx, nil, c.aud); err != nil { // backfill once, outside the timing
				b.Fatal(err)
			}
			trips.n.Store(0)
			b.ResetTimer()
			for b.Loop() {
				st, err := q.Stats(ctx, nil, c.aud)
				if err != nil {
					b.Fatal(err)
				}
				if c.aud.All() && st.Pending+st.Active+st.Failed+st.Cancelled == 0 {
					b.Fatalf("stats %+v", st)
				}
			}
			b.ReportMetric(float64(trips.n.Load())/float64(b.N), "round-trips/op")
		})
	}
}

// seedRetained writes n top-level jobs of namespace ns into q's Redis as
// ragd and Asynq would have left them, 1,000 to a pipeline; every other
// job is asked by limited, the rest by an operator.
func seedRetained(b *testing.B, q *Queue, ns string, n int, limited ragd.Audience) {
	b.Helper()
	ctx := b.Context()
	states := []string{"completed", "completed", "pending", "active", "archived"}
	now := float64(time.Now().UnixMilli())
	for start := 0; start < n; start += 1000 {
		_, err := q.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i := start; i < min(start+1000, n); i++ {
				id := fmt.Sprintf("bench-%06d", i)
				p.ZAdd(ctx, q.keys.Index(ns), redis.Z{Score: now - float64(i), Member: id})
				viewer := ragd.EveryGroup
				if i%2 == 0 {
					viewer = limited.Key()
				}
				p.HSet(ctx, q.keys.Viewers(), id, viewer)
				p.HSet(ctx, q.keys.Task(id), "state", states[i%len(states)])
				if i%10 == 9 {
					p.HSet(ctx, q.keys.Control(id), "status", ctlCancelled)
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	if err := q.rdb.SAdd(ctx, q.keys.Namespaces(), ns).Err(); err != nil {
		b.Fatal(err)
	}
}
