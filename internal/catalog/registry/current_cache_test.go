package registry

import (
	"fmt"
	"testing"
)

func ids(prefix string, n int) map[string]string {
	m := make(map[string]string, n)
	for i := range n {
		m[fmt.Sprintf("%s%d", prefix, i)] = "h"
	}
	return m
}

// However many namespaces are searched, the versions held stay under
// currentMaxIDs, and the namespace just read keeps what it read.
func TestCurrentCacheBounded(t *testing.T) {
	c := newCurrentCache()
	half := currentMaxIDs/2 + 1
	c.store("a", 1, ids("a", half))
	c.store("b", 1, ids("b", half))
	if c.total > currentMaxIDs {
		t.Fatalf("%d ids held, bound %d", c.total, currentMaxIDs)
	}
	if _, missing := c.lookup("b", 1, []string{"b0", "b1"}); len(missing) != 0 {
		t.Fatalf("the namespace just stored lost %v", missing)
	}
	if _, missing := c.lookup("a", 1, []string{"a0"}); len(missing) != 1 {
		t.Fatal("an older namespace was kept past the bound")
	}
	c.store("b", 2, ids("b", 10)) // a new epoch replaces the namespace's ids
	if c.total != 10 {
		t.Fatalf("after a new epoch: %d ids held, want 10", c.total)
	}
	if _, missing := c.lookup("b", 1, []string{"b0"}); len(missing) != 1 {
		t.Fatal("an older epoch answered after a newer one was stored")
	}
	c.store("b", 1, ids("x", 5)) // a read at an older epoch is not kept
	if _, missing := c.lookup("b", 2, []string{"x0"}); len(missing) != 1 || c.total != 10 {
		t.Fatalf("an older epoch's read was stored (total %d)", c.total)
	}
}
