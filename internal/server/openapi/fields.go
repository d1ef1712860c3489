package openapi

import (
	"cmp"
	"reflect"
	"slices"
	"strings"
	"unicode"
)

// field is one JSON member of a struct, resolved as encoding/json resolves
// it: tags, embedded structs and the dominance of shallower fields.
type field struct {
	name     string
	tagged   bool // named by its json tag
	index    []int
	sf       reflect.StructField
	omit     bool // omitempty or omitzero: may be absent
	asString bool // the ",string" option: a scalar sent as a JSON string
	viaPtr   bool // promoted through an embedded pointer, absent when it is nil
}

// required follows the rule clients rely on: present unless omitted when
// empty, a pointer, or promoted through a pointer that may be nil.
func (f field) required() bool {
	return !f.omit && !f.viaPtr && f.sf.Type.Kind() != reflect.Pointer
}

// embedding is a struct whose fields are promoted into the one described.
type embedding struct {
	typ    reflect.Type
	index  []int
	viaPtr bool
}

// jsonFields lists t's JSON members in encoding/json's order. It walks
// embedded structs breadth first so a shallower field hides deeper ones.
func jsonFields(t reflect.Type) []field {
	var all []field
	visited := map[reflect.Type]bool{}
	for level := []embedding{{typ: t}}; len(level) > 0; {
		// A struct embedded twice at one depth makes its fields ambiguous;
		// listing them twice lets dominance drop them, as encoding/json does.
		count := map[reflect.Type]int{}
		for _, e := range level {
			count[e.typ]++
		}
		var next []embedding
		for _, e := range level {
			if visited[e.typ] {
				continue
			}
			visited[e.typ] = true
			fs, nested := directFields(e)
			all = append(all, fs...)
			if count[e.typ] > 1 {
				all = append(all, fs...)
			}
			next = append(next, nested...)
		}
		level = next
	}
	return dominant(all)
}

// directFields returns e's own members and the structs it embeds untagged.
func directFields(e embedding) ([]field, []embedding) {
	var fields []field
	var nested []embedding
	for i := range e.typ.NumField() {
		sf := e.typ.Field(i)
		ft := sf.Type
		if ft.Name() == "" && ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if sf.Anonymous {
			// Unexported embedded structs still promote exported fields.
			if !sf.IsExported() && ft.Kind() != reflect.Struct {
				continue
			}
		} else if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if !validTagName(name) {
			name = ""
		}
		index := append(slices.Clone(e.index), i)
		if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct {
			nested = append(nested, embedding{typ: ft, index: index,
				viaPtr: e.viaPtr || sf.Type.Kind() == reflect.Pointer})
			continue
		}
		f := field{name: name, tagged: name != "", index: index, sf: sf, viaPtr: e.viaPtr}
		if f.name == "" {
			f.name = sf.Name
		}
		for opt := range strings.SplitSeq(opts, ",") {
			switch opt {
			case "omitempty", "omitzero":
				f.omit = true
			case "string":
				f.asString = true
			}
		}
		fields = append(fields, f)
	}
	return fields, nested
}

// dominant keeps, for each name, the shallowest field, preferring a tagged
// one; a tie drops the name altogether. The result is in index order.
func dominant(all []field) []field {
	byName := map[string][]field{}
	for _, f := range all {
		byName[f.name] = append(byName[f.name], f)
	}
	var out []field
	for _, fs := range byName {
		slices.SortStableFunc(fs, func(a, b field) int {
			if c := cmp.Compare(len(a.index), len(b.index)); c != 0 {
				return c
			}
			if a.tagged != b.tagged {
				if a.tagged {
					return -1
				}
				return 1
			}
			return 0
		})
		if len(fs) > 1 && len(fs[0].index) == len(fs[1].index) && fs[0].tagged == fs[1].tagged {
			continue
		}
		out = append(out, fs[0])
	}
	slices.SortFunc(out, func(a, b field) int { return slices.Compare(a.index, b.index) })
	return out
}

// validTagName mirrors encoding/json: a tag name with other characters is
// ignored and the Go field name used instead.
func validTagName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}
