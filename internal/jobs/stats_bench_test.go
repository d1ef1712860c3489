package jobs

import (
	"context"
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
// writes of their index entries, viewers and task states, for an operator
// (every job) and for a limited audience (one HMGET of the askers'
// audiences per batch on top of the walk). Interleaved in each run: walk,
// the count by reading every job's status (the floor: what Stats did
// before it kept counters); counters, Stats as it is, reading the
// counters; recount, the walk that rewrites the counters when they are no
// longer trusted (at most once per countFresh across all processes). It
// reports the Redis round trips of one call (round-trips/op) beside ns/op.
func BenchmarkStatsRetained(b *testing.B) {
	q := testQueue(b)
	eng := ragd.ViewerAudience(&[]string{"eng"})
	seedRetained(b, q, "bench", statsBenchJobs, eng)
	trips := &roundTrips{}
	q.rdb.(*redis.Client).AddHook(trips)
	walk := func(ctx context.Context, aud ragd.Audience) (Stats, error) {
		if err := q.backfill(ctx); err != nil {
			return Stats{}, err
		}
		return q.walkStats(ctx, nil, aud)
	}
	for _, c := range []struct {
		name string
		aud  ragd.Audience
	}{{"operator", ragd.EveryDocument()}, {"limited", eng}} {
		want, err := walk(b.Context(), c.aud)
		if err != nil {
			b.Fatal(err)
		}
		for _, m := range []struct {
			name  string
			stats func(context.Context, ragd.Audience) (Stats, error)
		}{
			{"walk", walk},
			{"counters", func(ctx context.Context, aud ragd.Audience) (Stats, error) {
				return q.Stats(ragd.WithAudience(ctx, aud), nil)
			}},
			{"recount", func(ctx context.Context, _ ragd.Audience) (Stats, error) { _, err := q.recount(ctx); return want, err }},
		} {
			b.Run(c.name+"/"+m.name, func(b *testing.B) {
				ctx := b.Context()
				if _, err := q.recount(ctx); err != nil { // fresh counters, outside the timing
					b.Fatal(err)
				}
				trips.n.Store(0)
				b.ResetTimer()
				for b.Loop() {
					st, err := m.stats(ctx, c.aud)
					if err != nil {
						b.Fatal(err)
					}
					if st != want {
						b.Fatalf("%s: stats %+v, walk %+v", m.name, st, want)
					}
				}
				b.ReportMetric(float64(trips.n.Load())/float64(b.N), "round-trips/op")
			})
		}
	}
}

// seedRetained writes n top-level jobs of namespace ns into q's Redis as
// ragd and Asynq would have left them, 1,000 to a pipeline; every other
// job is asked by limited, the rest by an operator.
func seedRetained(b testing.TB, q *Queue, ns string, n int, limited ragd.Audience) {
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
