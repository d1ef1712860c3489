package collector

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Trace is the spans of one trace.
func Trace(spans []Span, traceID string) []Span {
	return where(spans, func(s Span) bool { return s.TraceID == traceID })
}

// Named is the spans called name.
func Named(spans []Span, name string) []Span {
	return where(spans, func(s Span) bool { return s.Name == name })
}

// Children are the spans whose parent is parent.
func Children(spans []Span, parent Span) []Span {
	return where(spans, func(s Span) bool { return s.ParentID == parent.SpanID && s.TraceID == parent.TraceID })
}

// where is the spans keep holds for, in order.
func where(spans []Span, keep func(Span) bool) []Span {
	var out []Span
	for _, s := range spans {
		if keep(s) {
			out = append(out, s)
		}
	}
	return out
}

// Parent is s's parent among spans, and whether it is there.
func Parent(spans []Span, s Span) (Span, bool) {
	for _, p := range spans {
		if p.SpanID == s.ParentID && p.TraceID == s.TraceID {
			return p, true
		}
	}
	return Span{}, false
}

// Under reports whether s descends from ancestor.
func Under(spans []Span, s, ancestor Span) bool {
	for {
		p, ok := Parent(spans, s)
		if !ok {
			return false
		}
		if p.SpanID == ancestor.SpanID {
			return true
		}
		s = p
	}
}

// Tree draws spans as the trees they make, children in start order, each
// line a span's name, duration and ragd's attributes: what an operator's
// trace view shows.
func Tree(spans []Span) string {
	byParent := map[string][]Span{}
	ids := map[string]bool{}
	for _, s := range spans {
		ids[s.TraceID+s.SpanID] = true
	}
	var roots []Span
	for _, s := range spans {
		if s.ParentID == "" || !ids[s.TraceID+s.ParentID] {
			roots = append(roots, s)
			continue
		}
		byParent[s.TraceID+s.ParentID] = append(byParent[s.TraceID+s.ParentID], s)
	}
	byStart := func(a, b Span) int { return a.Start.Compare(b.Start) }
	slices.SortFunc(roots, byStart)
	var b strings.Builder
	var draw func(s Span, depth int)
	draw = func(s Span, depth int) {
		fmt.Fprintf(&b, "%s%s (%s, %.1f ms)%s\n", strings.Repeat("  ", depth), s.Name, strings.ToLower(s.Kind),
			float64(s.End.Sub(s.Start).Microseconds())/1000, describe(s))
		kids := byParent[s.TraceID+s.SpanID]
		slices.SortFunc(kids, byStart)
		for _, k := range kids {
			draw(k, depth+1)
		}
	}
	for _, r := range roots {
		if r.ParentID != "" {
			fmt.Fprintf(&b, "(parent %s not received)\n", r.ParentID)
		}
		draw(r, 0)
	}
	return b.String()
}

// describe is a span's ragd attributes, status, links and events, briefly.
func describe(s Span) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(s.Attrs)) {
		if strings.HasPrefix(k, "ragd.") || k == "http.response.status_code" || k == "db.redis.num_cmd" {
			parts = append(parts, strings.TrimPrefix(k, "ragd.")+"="+s.Attrs[k])
		}
	}
	if s.Status == "error" {
		parts = append(parts, "ERROR "+s.StatusMessage)
	}
	for _, l := range s.Links {
		parts = append(parts, "link→"+l.SpanID[:8])
	}
	for _, e := range s.Events {
		parts = append(parts, "event:"+e.Name)
	}
	if len(parts) == 0 {
		return ""
	}
	return " " + strings.Join(parts, " ")
}
