package testenv

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"ragd/internal/platform/keyspace"
)

// SlotCheck is a go-redis hook that finds what a Redis Cluster would
// refuse with CROSSSLOT: a script call, a MULTI/EXEC block or a WATCH
// whose keys fall in more than one hash slot — a block's keys counted
// with those WATCHed before it, since a cluster runs both on the node of
// the watched slot. Add it to a client with AddHook, run the workload,
// then call Check. It asks Redis itself which arguments of a command are
// keys (COMMAND GETKEYS), over a client of its own so the question is not
// checked again.
type SlotCheck struct {
	keysOf *redis.Client

	mu      sync.Mutex
	crossed []string
	checked map[string]int // per kind: script, transaction, watch
	// watched are the keys WATCHed under a context until its UNWATCH:
	// go-redis's Watch runs the check, the block and the UNWATCH with the
	// context it was given, as ragd passes one call's context throughout.
	watched map[context.Context][]string
}

// NewSlotCheck returns a check that asks the test Redis for commands' keys.
func NewSlotCheck(t testing.TB) *SlotCheck {
	t.Helper()
	return &SlotCheck{keysOf: RedisClient(t, RedisURL(t)), checked: map[string]int{}, watched: map[context.Context][]string{}}
}

// DialHook is go-redis's; the check has nothing to do on a dial.
func (s *SlotCheck) DialHook(next redis.DialHook) redis.DialHook { return next }

// ProcessHook checks scripts and WATCHes sent alone.
func (s *SlotCheck) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		switch name := cmd.Name(); name {
		case "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro":
			s.record(ctx, "script", []redis.Cmder{cmd}, nil)
		case "watch":
			keys := s.record(ctx, "watch", []redis.Cmder{cmd}, nil)
			s.mu.Lock()
			s.watched[ctx] = append(s.watched[ctx], keys...)
			s.mu.Unlock()
		case "unwatch":
			s.mu.Lock()
			delete(s.watched, ctx)
			s.mu.Unlock()
		}
		return next(ctx, cmd)
	}
}

// ProcessPipelineHook checks every MULTI/EXEC block as one, and scripts
// sent in a plain pipeline one by one.
func (s *SlotCheck) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if len(cmds) > 0 && cmds[0].Name() == "multi" {
			s.mu.Lock()
			watched := s.watched[ctx]
			s.mu.Unlock()
			s.record(ctx, "transaction", cmds, watched)
		} else {
			for _, cmd := range cmds {
				if strings.HasPrefix(cmd.Name(), "eval") || strings.HasPrefix(cmd.Name(), "fcall") {
					s.record(ctx, "script", []redis.Cmder{cmd}, nil)
				}
			}
		}
		return next(ctx, cmds)
	}
}

// record notes the keys of cmds, with also, when they span more than one
// slot, and returns cmds' keys.
func (s *SlotCheck) record(ctx context.Context, kind string, cmds []redis.Cmder, also []string) []string {
	var keys []string
	for _, cmd := range cmds {
		keys = append(keys, s.keys(ctx, cmd)...)
	}
	slots := map[int][]string{}
	for _, k := range append(also, keys...) {
		slots[keyspace.Slot(k)] = append(slots[keyspace.Slot(k)], k)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.checked[kind]++
	if len(slots) > 1 {
		s.crossed = append(s.crossed, fmt.Sprintf("%s %s: keys in %d slots %v", kind, names(cmds), len(slots), slots))
	}
	return keys
}

// keys are cmd's key arguments as Redis reads them; none for a command
// without keys (MULTI, EXEC, a script given no KEYS).
func (s *SlotCheck) keys(ctx context.Context, cmd redis.Cmder) []string {
	switch cmd.Name() {
	case "multi", "exec":
		return nil
	}
	args := append([]any{"command", "getkeys"}, cmd.Args()...)
	keys, err := s.keysOf.Do(ctx, args...).StringSlice()
	if err != nil {
		return nil // "the command has no key arguments"
	}
	return keys
}

func names(cmds []redis.Cmder) string {
	n := make([]string, len(cmds))
	for i, c := range cmds {
		n[i] = c.Name()
	}
	return strings.Join(n, ",")
}

// Check fails t when anything seen crossed slots, or when none of the
// kinds in want was seen at all (a check that saw nothing proves nothing).
func (s *SlotCheck) Check(t testing.TB, want ...string) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, kind := range want {
		if s.checked[kind] == 0 {
			t.Errorf("no %s was seen: the workload did not exercise what the check is for (saw %v)", kind, s.checked)
		}
	}
	for _, c := range s.crossed {
		t.Errorf("a Redis Cluster would refuse this (CROSSSLOT): %s", c)
	}
	t.Logf("slot check: %v", s.checked)
}
