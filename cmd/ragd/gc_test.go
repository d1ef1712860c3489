package main

import "testing"

// A process whose live heap is mostly static models gets a quarter of it
// as its GC window; a small one keeps Go's default, a middling one the
// window floor.
func TestGCPercent(t *testing.T) {
	for _, tc := range []struct {
		live uint64
		want int
	}{{0, 100}, {4 << 20, 100}, {16 << 20, 100}, {32 << 20, 50}, {48 << 20, 34}, {64 << 20, 25}, {1 << 30, 25}} {
		if got := gcPercent(tc.live); got != tc.want {
			t.Errorf("live %d MiB: %d, want %d", tc.live>>20, got, tc.want)
		}
	}
}
