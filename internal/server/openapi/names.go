package openapi

import (
	"path"
	"reflect"
	"regexp"
	"strconv"
)

// invalidNameChars are those a component name may not hold (the spec allows
// ^[a-zA-Z0-9.\-_]+$); generic instantiations such as Page[x.T] have them.
var invalidNameChars = regexp.MustCompile(`[^A-Za-z0-9._-]`)

// componentNames names each type by its Go name. Types that share a name
// are prefixed with their package name, or with their whole import path
// when even that is shared; Go names hold no dot, so these never collide
// with a plain name. Types local to different functions can share even
// that, and are numbered in the order given.
func componentNames(types []reflect.Type) map[reflect.Type]string {
	byBase := map[string][]reflect.Type{}
	for _, t := range types {
		base := sanitize(t.Name())
		byBase[base] = append(byBase[base], t)
	}
	names := map[reflect.Type]string{}
	for base, group := range byBase {
		if len(group) == 1 {
			names[group[0]] = base
			continue
		}
		seen := map[string]int{}
		for _, t := range group {
			seen[path.Base(t.PkgPath())]++
		}
		taken := map[string]int{}
		for _, t := range group {
			prefix := path.Base(t.PkgPath())
			if seen[prefix] > 1 {
				prefix = t.PkgPath()
			}
			name := sanitize(prefix) + "." + base
			if taken[name]++; taken[name] > 1 {
				name += "_" + strconv.Itoa(taken[name])
			}
			names[t] = name
		}
	}
	return names
}

func sanitize(name string) string {
	return invalidNameChars.ReplaceAllString(name, "_")
}

// link fills every $ref from the type it refers to. A reference that also
// carries a description, nullability or a default is wrapped in allOf,
// since OpenAPI 3.0 ignores the siblings of a $ref.
func link(s *schema, names map[reflect.Type]string) {
	if s == nil {
		return
	}
	if s.refTo != nil {
		ref := "#/components/schemas/" + names[s.refTo]
		if s.hasExtras() {
			s.AllOf = []*schema{{Ref: ref}}
		} else {
			s.Ref = ref
		}
		s.refTo = nil
	}
	for _, sub := range s.AllOf {
		link(sub, names)
	}
	link(s.Items, names)
	link(s.AdditionalProperties, names)
	if s.Properties != nil {
		for _, p := range s.Properties.values {
			link(p, names)
		}
	}
}
