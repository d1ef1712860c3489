package cli

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// A bar's row at a terminal width is three columns: the label, the bar and
// the counts. Each column's width depends on the terminal's width alone,
// so the bar neither moves nor changes size as the counts grow, and the
// row never passes the terminal's edge.
const (
	// minBarWidth is the narrowest bar drawn (a 40-column terminal).
	minBarWidth = 8
	// minLabelWidth and maxLabelWidth bound the label's column.
	minLabelWidth, maxLabelWidth = 7, 32
	// longestPhase is the widest phase label, kept room for in the
	// counts' column from the start.
	longestPhase = "cutting over…"
)

// barColumns is the label's, the bar's and the counts' widths at a
// terminal width, for counts up to total: the bar takes a fifth, the
// counts keep room for the longest phase and the total's counter, and the
// label gets what remains between its bounds. With the two spaces mpb
// puts around the bar they add up to the width.
func (st gaugeState) barColumns(width int) (label, bar, counts int) {
	bar = min(max(width/5, minBarWidth), barWidth)
	full := st
	full.done = max(st.total, st.done)
	reserve := utf8.RuneCountInString(longestPhase + " · " + full.counter())
	label = min(max(width-bar-2-reserve, minLabelWidth), maxLabelWidth)
	return label, bar, max(width-label-bar-2, 0)
}

// fitLabel is s on one line in exactly n columns: a longer one loses its
// middle to "…", keeping its start and, longer, its end (a file's name).
func fitLabel(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) > n {
		keep := max(n-1, 0)
		tail := (keep*2 + 2) / 3
		s = string(r[:keep-tail]) + "…" + string(r[len(r)-tail:])
	}
	return pad(s, n)
}

// pad is s with spaces after it to n columns.
func pad(s string, n int) string {
	return s + strings.Repeat(" ", max(n-utf8.RuneCountInString(s), 0))
}

// barText is the counts column at most n wide: the phase and the counts
// always (the done count padded to the total's digits), then the extra,
// rate and ETA while they fit.
func (st gaugeState) barText(n int) string {
	parts := []string{st.counter()}
	if p := st.phaseLabel(); p != "" {
		parts = append([]string{p}, parts...)
	}
	line := strings.Join(parts, " · ")
	for _, more := range st.details() {
		if next := line + " · " + more; utf8.RuneCountInString(next) <= n {
			line = next
		} else {
			break
		}
	}
	if utf8.RuneCountInString(line) > n && st.total > 0 && st.unit != "bytes" {
		// Narrow: the phase and the figures without their unit.
		c := st.counter()
		line = strings.TrimSpace(st.phaseLabel() + " " + c[:strings.LastIndex(c, " ")])
	}
	if r := []rune(line); len(r) > n {
		return string(r[:max(n-1, 0)]) + "…"
	}
	return line
}

// counter is counts with the done count as wide as the total's.
func (st gaugeState) counter() string {
	if st.unit == "bytes" || st.total <= 0 {
		return st.counts()
	}
	digits := len(fmt.Sprint(st.total))
	return fmt.Sprintf("%*d/%d %s", digits, st.done, st.total, st.unit)
}

// phaseLabel is what the work is doing when its counts do not say: its
// phase, or a wait with every count done that has not ended.
func (st gaugeState) phaseLabel() string {
	switch {
	case st.phase != "" || st.ended:
		return st.phase
	case st.total > 0 && st.done >= st.total:
		return "finishing…"
	case st.total == 0 && st.done == 0:
		return "starting…"
	}
	return ""
}
