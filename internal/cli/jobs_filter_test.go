package cli_test

import (
	"testing"

	"ragd/internal/testkit/stack"
)

// An empty job listing names the filters that found nothing and how to
// widen them, rather than a bare 'no jobs' while jobs exist elsewhere.
func TestEmptyJobListNamesItsFilters(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := stack.Start(t, stack.Config(t, root), false)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"jobs", "--status", "failed", "--kb", "teama"}, "no failed jobs in namespace teama (drop --status or --kb to see more)\n"},
		{[]string{"jobs", "--kb", "teamb"}, "no jobs in namespace teamb (drop --kb to see more)\n"},
		{[]string{"jobs", "--status", "failed"}, "no failed jobs in the namespaces this key may use (drop --status to see more)\n"},
	} {
		if r := run(t, s.URL, tc.args...); r.code != 0 || r.stdout != tc.want {
			t.Errorf("%v: %q, want %q\n%s", tc.args, r.stdout, tc.want, r)
		}
	}
}
