package registry

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"ragd"
	"ragd/internal/platform/keyspace"
	"ragd/internal/testkit/testenv"
)

// twoProcesses are two registries on one Redis and one key prefix, as two
// ragd processes have: watching holds epochs (its clock stopped, so only
// an announcement or a loss drops them), other writes.
func twoProcesses(t *testing.T) (watching, other *Registry, rdb *redis.Client) {
	t.Helper()
	opts, err := redis.ParseURL(testenv.RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	opts.ClientName = testenv.Unique(t, "E")
	rdb = redis.NewClient(opts)
	prefix := "test:" + opts.ClientName
	keys := keyspace.New(prefix)
	t.Cleanup(func() {
		if ks, _ := rdb.Keys(context.Background(), prefix+":*").Result(); len(ks) > 0 {
			_ = rdb.Del(context.Background(), ks...).Err()
		}
		_ = rdb.Close()
	})
	watching, other = New(rdb, keys), New(rdb, keys)
	stopped := time.Now()
	watching.epochs.now = func() time.Time { return stopped }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { watching.WatchEpochs(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	waitFor(t, "the subscription to be live", func() bool { return watching.epochs.isLive() })
	return watching, other, rdb
}

func (e *epochs) isLive() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.live
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func readEpoch(t *testing.T, r *Registry, ns string) int64 {
	t.Helper()
	e, err := r.Epoch(t.Context(), ns)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// heardAll returns once r has heard every announcement published before
// the call — its own included, which arrive on the subscription after the
// writer returned: it announces a fence and waits for it, and the channel
// delivers in publish order.
func heardAll(t *testing.T, r *Registry, rdb *redis.Client) {
	t.Helper()
	const fence = "heard-all-fence"
	waitFor(t, "the fence's epoch to be held", func() bool {
		readEpoch(t, r, fence)
		_, ok := r.KnownEpoch(fence)
		return ok
	})
	if err := rdb.Publish(t.Context(), r.keys.EpochChannel(), fence).Err(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the fence to be heard", func() bool { _, ok := r.KnownEpoch(fence); return !ok })
}

func putDoc(t *testing.T, r *Registry, ns, id, hash string) {
	t.Helper()
	if err := r.Put(t.Context(), ragd.Document{ID: id, Namespace: ns, Source: "s", ContentHash: hash}); err != nil {
		t.Fatal(err)
	}
}

// An epoch read under a live subscription is held until a move is
// announced — by another process — or made by this one; then it is read
// again, moved.
func TestEpochHeldUntilItMoves(t *testing.T) {
	watching, other, _ := twoProcesses(t)
	e0 := readEpoch(t, watching, "a")
	if e, ok := watching.KnownEpoch("a"); !ok || e != e0 {
		t.Fatalf("KnownEpoch after a read = %d, %v; want %d, true", e, ok, e0)
	}

	putDoc(t, other, "a", "d1", "v1")
	waitFor(t, "the other process's move to be heard", func() bool { _, ok := watching.KnownEpoch("a"); return !ok })
	if e := readEpoch(t, watching, "a"); e <= e0 {
		t.Fatalf("epoch after another process's put = %d, want past %d", e, e0)
	}

	e1 := readEpoch(t, watching, "a")
	if err := other.Delete(t.Context(), "a", "d1"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the other process's delete to be heard", func() bool { _, ok := watching.KnownEpoch("a"); return !ok })
	e2 := readEpoch(t, watching, "a")
	if e2 <= e1 {
		t.Fatalf("epoch after a delete = %d, want past %d", e2, e1)
	}
	if err := other.ClearNamespace(t.Context(), "a"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the other process's clear to be heard", func() bool { _, ok := watching.KnownEpoch("a"); return !ok })

	// This process's own move is forgotten before the writer returns.
	readEpoch(t, watching, "a")
	putDoc(t, watching, "a", "d2", "v1")
	if _, ok := watching.KnownEpoch("a"); ok {
		t.Fatal("the epoch was still held after this process moved it")
	}
	// ForgetEpoch (a job seen completed) drops it too.
	readEpoch(t, watching, "a")
	watching.ForgetEpoch("a")
	if _, ok := watching.KnownEpoch("a"); ok {
		t.Fatal("the epoch was still held after ForgetEpoch")
	}
}

// A move whose announcement never came (a writer that could not publish)
// is noticed by the next search that reads the versions from Redis: the
// stale epoch is dropped then, not a second later.
func TestStaleEpochDroppedWhenRedisIsAhead(t *testing.T) {
	watching, _, rdb := twoProcesses(t)
	putDoc(t, watching, "a", "d1", "v1")
	heardAll(t, watching, rdb) // the put's own announcement, or it drops the epoch below
	e0 := readEpoch(t, watching, "a")
	if err := rdb.Incr(t.Context(), watching.keys.Epoch("a")).Err(); err != nil { // a move, unannounced
		t.Fatal(err)
	}
	if _, ok := watching.KnownEpoch("a"); !ok {
		t.Fatal("the epoch was dropped without a read; the test shows nothing")
	}
	if _, err := watching.CurrentHashesAt(t.Context(), "a", []string{"d1"}, e0); err != nil {
		t.Fatal(err)
	}
	if e, ok := watching.KnownEpoch("a"); ok {
		t.Fatalf("epoch %d still held after Redis was read at %d", e, e0+1)
	}
	if e := readEpoch(t, watching, "a"); e != e0+1 {
		t.Fatalf("epoch read = %d, want %d", e, e0+1)
	}
}

// Without a live subscription nothing is held: an announcement could be
// missed.
func TestEpochNotHeldWithoutSubscription(t *testing.T) {
	watching, other, rdb := twoProcesses(t)
	readEpoch(t, watching, "a")
	if _, ok := watching.KnownEpoch("a"); !ok {
		t.Fatal("not held under a live subscription")
	}
	// Kill the subscription's connection, as a network fault would.
	list, err := rdb.ClientList(t.Context()).Result()
	if err != nil {
		t.Fatal(err)
	}
	killed := 0
	for _, line := range strings.Split(list, "\n") {
		if strings.Contains(line, "name="+rdb.Options().ClientName+" ") && strings.Contains(line, " sub=1 ") {
			id, _, _ := strings.Cut(strings.TrimPrefix(line, "id="), " ")
			if err := rdb.Do(t.Context(), "CLIENT", "KILL", "ID", id).Err(); err != nil {
				t.Fatal(err)
			}
			killed++
		}
	}
	if killed != 1 {
		t.Fatalf("killed %d subscription connections, want 1:\n%s", killed, list)
	}
	waitFor(t, "the loss to drop the held epoch", func() bool { _, ok := watching.KnownEpoch("a"); return !ok })
	// A move while the subscription is down is not missed: the next read
	// goes to Redis.
	putDoc(t, other, "a", "d1", "v1")
	waitFor(t, "the subscription to come back", func() bool { return watching.epochs.isLive() })
	if e := readEpoch(t, watching, "a"); e != 1 {
		t.Fatalf("epoch after a move while unsubscribed = %d, want 1", e)
	}

	// A registry that never subscribed holds nothing.
	readEpoch(t, other, "a")
	if _, ok := other.KnownEpoch("a"); ok {
		t.Fatal("an epoch was held without a subscription")
	}
}

// An epoch read across a move is not held (it may predate the move), and
// a held epoch is read again after epochMemoAge.
func TestEpochMemoRules(t *testing.T) {
	now := time.Now()
	e := newEpochs()
	e.now = func() time.Time { return now }
	e.setLive(true)
	mark := e.mark()
	e.forget("b") // a move, of any namespace, while "a" was read
	e.put("a", 4, mark)
	if _, ok := e.get("a"); ok {
		t.Fatal("an epoch read across a move was held")
	}
	e.put("a", 5, e.mark())
	if v, ok := e.get("a"); !ok || v != 5 {
		t.Fatalf("get = %d, %v; want 5, true", v, ok)
	}
	now = now.Add(epochMemoAge)
	if _, ok := e.get("a"); ok {
		t.Fatal("an epoch was held past epochMemoAge")
	}
	e.put("a", 5, e.mark())
	e.setLive(false)
	if _, ok := e.get("a"); ok {
		t.Fatal("an epoch was held after the subscription was lost")
	}
	e.put("a", 5, e.mark())
	if _, ok := e.get("a"); ok {
		t.Fatal("an epoch was held while not subscribed")
	}
}
