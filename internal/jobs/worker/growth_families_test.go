package worker_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// keyFamily names the family of a Redis key: its first part after the
// prefix (hash tags and ids left out), with the next one for ragd's job
// keys and Asynq's, e.g. "docs", "vocab", "lock", "jobs:index",
// "asynq:t".
func keyFamily(prefix, key string) string {
	rest, ours := strings.CutPrefix(key, prefix+":")
	if !ours {
		rest = key
	}
	var parts []string
	for _, p := range strings.Split(rest, ":") {
		if strings.HasPrefix(p, "{") {
			continue
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return "?"
	}
	if (parts[0] == "jobs" || parts[0] == "asynq") && len(parts) > 1 {
		return parts[0] + ":" + parts[1]
	}
	return parts[0]
}

// redisFamilies reports, for the keys of ragd's prefix and of the
// queue's Asynq keys, by key family, the keys and MEMORY USAGE (bytes,
// the key and its value with Redis's overhead) and that per chunk and per
// document, largest first, and the total.
func redisFamilies(b *testing.B, rdb redis.UniversalClient, prefix, queue string, chunks, docs int) string {
	ctx := context.Background()
	type family struct {
		keys  int
		bytes int64
	}
	fams := map[string]*family{}
	var keys []string
	for _, pattern := range []string{prefix + ":*", "asynq:{" + queue + "}:*"} {
		iter := rdb.Scan(ctx, 0, pattern, 1000).Iterator()
		for iter.Next(ctx) {
			keys = append(keys, iter.Val())
		}
		if err := iter.Err(); err != nil {
			b.Fatal(err)
		}
	}
	for batch := range slices.Chunk(keys, 1000) {
		cmds, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for _, k := range batch {
				p.MemoryUsage(ctx, k)
			}
			return nil
		})
		if err != nil && err != redis.Nil {
			b.Fatal(err)
		}
		for i, cmd := range cmds {
			n, _ := cmd.(*redis.IntCmd).Result() // a key gone meanwhile counts 0
			name := keyFamily(prefix, batch[i])
			if fams[name] == nil {
				fams[name] = &family{}
			}
			fams[name].keys++
			fams[name].bytes += n
		}
	}
	names := make([]string, 0, len(fams))
	var total int64
	for n, f := range fams {
		names = append(names, n)
		total += f.bytes
	}
	slices.SortFunc(names, func(a, b string) int { return int(fams[b].bytes - fams[a].bytes) })
	var out strings.Builder
	fmt.Fprintf(&out, "  Redis by key family (MEMORY USAGE): %.1f B/chunk, %.0f B/document in all (%d keys)\n",
		float64(total)/float64(max(chunks, 1)), float64(total)/float64(max(docs, 1)), len(keys))
	for _, n := range names {
		f := fams[n]
		fmt.Fprintf(&out, "    %-18s %8d keys %12d B  %7.1f B/chunk  %8.0f B/document\n", n, f.keys, f.bytes,
			float64(f.bytes)/float64(max(chunks, 1)), float64(f.bytes)/float64(max(docs, 1)))
	}
	return out.String()
}
