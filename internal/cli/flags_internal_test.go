package cli

import (
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

// Flags may come before, between or after the arguments; "--" ends them.
func TestParseIntersperses(t *testing.T) {
	s := &session{env: Env{Stdout: io.Discard, Stderr: io.Discard}, name: "search"}
	fs := s.flags()
	kb := fs.String("kb", "", "")
	pos, err := s.parse(fs, []string{"how", "--kb", "docs", "do", "--json", "I", "--", "--top-k", "x"}, 1, -1)
	if err != nil || *kb != "docs" || !s.globals.json || !slices.Equal(pos, []string{"how", "do", "I", "--top-k", "x"}) {
		t.Fatalf("parse: %v %q %v %v", pos, *kb, s.globals.json, err)
	}
	for _, args := range [][]string{{}, {"--kb"}, {"--nope", "q"}} {
		if _, err := s.parse(s.flags(), args, 1, -1); exitCode(err) != ExitUsage {
			t.Errorf("%v: %v", args, err)
		}
	}
}

// Global flags before the command are the command's too; the command's
// own flags may not come before its name.
func TestLeadingGlobals(t *testing.T) {
	g := globals{server: "http://env:1"}
	rest, err := g.parseLeading([]string{"--json", "--server", "http://flag:2", "docs", "--kb", "x"})
	if err != nil || !g.json || g.server != "http://flag:2" || !slices.Equal(rest, []string{"docs", "--kb", "x"}) {
		t.Fatalf("leading globals: %+v %v %v", g, rest, err)
	}
	if !Is([]string{"--server=x", "docs"}) || !Is([]string{"ingest"}) || Is([]string{"serve"}) || Is(nil) {
		t.Error("Is")
	}
	var stderr strings.Builder
	if code := Run(t.Context(), []string{"--kb", "x", "docs"}, Env{Stdout: io.Discard, Stderr: &stderr, Getenv: func(string) string { return "" }}); code != ExitUsage ||
		!strings.HasPrefix(stderr.String(), "ragd: flag provided but not defined: -kb") {
		t.Errorf("--kb before the command: %d %q", code, stderr.String())
	}
}

// A gauge's line: counts, then rate and ETA once the work has run a while;
// bytes in binary units.
func TestGaugeText(t *testing.T) {
	st := gaugeState{done: 3, total: 10, unit: "files", extra: "120 chunks", running: 2 * time.Second}
	if got := st.text(); got != "3/10 files · 120 chunks · 1.5 files/s · ETA 4.7s" {
		t.Errorf("running: %q", got)
	}
	st = gaugeState{phase: "queued", unit: "files", extra: "0 chunks"}
	if got := st.text(); got != "queued · 0 files · 0 chunks" {
		t.Errorf("queued: %q", got)
	}
	st = gaugeState{done: 3 << 20, unit: "bytes", running: time.Second, ended: true}
	if got := st.text(); got != "3.0 MiB · 3.0 MiB/s" {
		t.Errorf("bytes: %q", got)
	}
}
