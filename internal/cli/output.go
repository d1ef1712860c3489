package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// emit writes v as the command's one JSON document.
func (s *session) emit(v any) error {
	enc := json.NewEncoder(s.env.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// printf writes a line for people (nothing with --json).
func (s *session) printf(format string, args ...any) {
	if !s.globals.json {
		fmt.Fprintf(s.env.Stdout, format, args...)
	}
}

// warnf writes a one-line warning on stderr.
func (s *session) warnf(format string, args ...any) {
	fmt.Fprintf(s.env.Stderr, "ragd %s: %s\n", s.name, fmt.Sprintf(format, args...))
}

// table writes rows under a header, in aligned columns.
func table(w io.Writer, header []string, rows [][]string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	_ = tw.Flush()
}

// oneLine collapses whitespace and cuts s to at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:max(n-1, 0)]) + "…"
	}
	return s
}

// seconds formats d for people: 850ms, 12.3s, 4m05s, 2h10m.
func seconds(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	default:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
}

// byteSize formats n bytes for people: 512 B, 1.5 KiB, 20.0 MiB.
func byteSize(n float64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%.0f B", n)
	}
	exp, div := 0, float64(unit)
	for n/div >= unit && exp < 4 {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", n/div, "KMGTP"[exp])
}

// stamp formats a time for tables: local, to the second.
func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04:05")
}
