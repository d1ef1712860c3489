package kv_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"ragd"
	"ragd/internal/platform/kv"
	"ragd/internal/testkit/testenv"
)

func store(t *testing.T) (*kv.Store, string) {
	t.Helper()
	return kv.New(testenv.RedisClient(t, testenv.RedisURL(t))), testenv.Unique(t, "kv") + ":"
}

func TestRecordsRoundTrip(t *testing.T) {
	s, p := store(t)
	ctx := context.Background()
	t.Cleanup(func() { _ = s.Delete(context.Background(), p+"a", p+"n", p+"c") })
	if _, ok, err := s.Get(ctx, p+"a"); ok || err != nil {
		t.Fatalf("absent key: ok=%v err=%v", ok, err)
	}
	if err := s.Set(ctx, p+"a", []byte("1"), time.Minute); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := s.Get(ctx, p+"a"); !ok || err != nil || string(v) != "1" {
		t.Fatalf("get = %q %v %v", v, ok, err)
	}
	if ok, err := s.SetNew(ctx, p+"a", []byte("2"), time.Minute); ok || err != nil {
		t.Fatalf("SetNew over an existing key = %v %v, want false", ok, err)
	}
	if ok, err := s.SetNew(ctx, p+"n", []byte("2"), time.Minute); !ok || err != nil {
		t.Fatalf("SetNew of a new key = %v %v, want true", ok, err)
	}
	if v, ok, _ := s.Take(ctx, p+"n"); !ok || string(v) != "2" {
		t.Fatalf("take = %q %v", v, ok)
	}
	if _, ok, _ := s.Take(ctx, p+"n"); ok {
		t.Fatal("a taken key was taken twice")
	}
	for want := int64(1); want <= 3; want++ {
		if n, err := s.Incr(ctx, p+"c", time.Minute); n != want || err != nil {
			t.Fatalf("incr = %d %v, want %d", n, err, want)
		}
	}
	if ttl := s.Client().TTL(ctx, p+"c").Val(); ttl <= 0 || ttl > time.Minute {
		t.Fatalf("counter ttl = %v, want (0, 1m]", ttl)
	}
	if err := s.Delete(ctx, p+"a", p+"c"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Get(ctx, p+"a"); ok {
		t.Fatal("deleted key still there")
	}
}

func TestTakeIsSingleUseUnderRace(t *testing.T) {
	s, p := store(t)
	ctx := context.Background()
	if err := s.Set(ctx, p+"code", []byte("x"), time.Minute); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	got := 0
	for range 8 {
		wg.Go(func() {
			if _, ok, _ := s.Take(ctx, p+"code"); ok {
				mu.Lock()
				got++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if got != 1 {
		t.Fatalf("%d takers got the code, want exactly 1", got)
	}
}

func TestUpdateSerializesWriters(t *testing.T) {
	s, p := store(t)
	ctx := context.Background()
	t.Cleanup(func() { _ = s.Delete(context.Background(), p+"u") })
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			_, err := s.Update(ctx, p+"u", 0, func(old []byte, _ bool) ([]byte, error) {
				return append(old, 'x'), nil
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if v, _, _ := s.Get(ctx, p+"u"); len(v) != 10 {
		t.Fatalf("after 10 concurrent appends the value is %q, want 10 x", v)
	}
	own := errors.New("no")
	if _, err := s.Update(ctx, p+"u", 0, func([]byte, bool) ([]byte, error) { return nil, own }); err != own {
		t.Fatalf("change's error came back as %v", err)
	}
	if v, _, _ := s.Get(ctx, p+"u"); len(v) != 10 {
		t.Fatal("a refused change wrote")
	}
	if _, err := s.Update(ctx, p+"u", 0, func([]byte, bool) ([]byte, error) { return nil, nil }); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Get(ctx, p+"u"); ok {
		t.Fatal("a nil value did not delete the key")
	}
}

func TestSets(t *testing.T) {
	s, p := store(t)
	ctx := context.Background()
	if err := s.AddMembers(ctx, p+"s", time.Minute, "b", "a", "b"); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveMembers(ctx, p+"s", "b"); err != nil {
		t.Fatal(err)
	}
	if err := s.AddMembers(ctx, p+"s", 0, "c"); err != nil {
		t.Fatal(err)
	}
	m, err := s.Members(ctx, p+"s")
	slices.Sort(m)
	if err != nil || !slices.Equal(m, []string{"a", "c"}) {
		t.Fatalf("members = %v %v", m, err)
	}
	if m, _ := s.TakeMembers(ctx, p+"s"); len(m) != 2 {
		t.Fatalf("taken %v", m)
	}
	if m, _ := s.Members(ctx, p+"s"); len(m) != 0 {
		t.Fatalf("set left after TakeMembers: %v", m)
	}
}

// TestRedisDownIsUnavailable: a Redis that does not answer reaches the
// caller as ragd's 503 kind, from every kind of call.
func TestRedisDownIsUnavailable(t *testing.T) {
	s := kv.New(testenv.RedisClient(t, "redis://127.0.0.1:1/0"))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _, getErr := s.Get(ctx, "k")
	_, updErr := s.Update(ctx, "k", 0, func([]byte, bool) ([]byte, error) { return []byte("v"), nil })
	for name, err := range map[string]error{"ping": s.Ping(ctx), "get": getErr, "set": s.Set(ctx, "k", nil, 0),
		"update": updErr, "delete": s.Delete(ctx, "k")} {
		if ragd.KindOf(err) != ragd.KindUnavailable {
			t.Errorf("%s on a dead Redis: %v (kind %v), want unavailable", name, err, ragd.KindOf(err))
		}
	}
}

func TestFields(t *testing.T) {
	s, p := store(t)
	ctx := context.Background()
	t.Cleanup(func() { _ = s.Delete(context.Background(), p+"h") })
	for _, f := range []string{"a", "b", "c"} {
		if err := s.SetField(ctx, p+"h", f, []byte(f+"1")); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DeleteFields(ctx, p+"h", "a", "c"); err != nil {
		t.Fatal(err)
	}
	if m, err := s.Fields(ctx, p+"h"); err != nil || len(m) != 1 || m["b"] != "b1" {
		t.Fatalf("fields = %v %v, want b=b1 alone", m, err)
	}
}
