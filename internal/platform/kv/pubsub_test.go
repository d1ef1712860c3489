package kv_test

import (
	"context"
	"testing"
	"time"

	"ragd/internal/platform/kv"
	"ragd/internal/testkit/testenv"
)

// TestPublishReachesSubscribers: a message published after Subscribe
// returned reaches the subscriber; after its context ends it gets no more.
func TestPublishReachesSubscribers(t *testing.T) {
	s, p := store(t)
	got := make(chan string, 4)
	ctx, cancel := context.WithCancel(context.Background())
	if err := s.Subscribe(ctx, p+"chan", func() {}, func(m string) { got <- m }); err != nil {
		t.Fatal(err)
	}
	if err := s.Publish(context.Background(), p+"chan", "family-1"); err != nil {
		t.Fatal(err)
	}
	if m := <-got; m != "family-1" {
		t.Fatalf("got %q", m)
	}
	cancel()
	for range 50 { // the subscription ends asynchronously: publish until no one listens
		n, err := s.Client().Publish(context.Background(), p+"chan", "late").Result()
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the subscription outlived its context")
}

// TestSubscriberHearsOfAGap: when Redis goes away the subscriber is told,
// so it stops trusting what only messages would have invalidated.
func TestSubscriberHearsOfAGap(t *testing.T) {
	url, kill := testenv.StartRedis(t)
	s := kv.New(testenv.RedisClient(t, url))
	gaps := make(chan struct{}, 16)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := s.Subscribe(ctx, "c", func() { gaps <- struct{}{} }, func(string) {}); err != nil {
		t.Fatal(err)
	}
	kill()
	<-gaps
}
