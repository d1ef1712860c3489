package ragd

import (
	"reflect"
	"strings"
	"testing"
)

// The OpenAPI enum of a job's status lists every status, in order.
func TestJobStatusEnumListsEveryStatus(t *testing.T) {
	var want []string
	for _, s := range JobStatuses {
		want = append(want, string(s))
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[Job](), reflect.TypeFor[ChildJob]()} {
		f, _ := typ.FieldByName("Status")
		if got := f.Tag.Get("enum"); got != strings.Join(want, ",") {
			t.Errorf("%s.Status enum %q, want %q", typ.Name(), got, strings.Join(want, ","))
		}
	}
	for _, s := range JobStatuses {
		if s.Terminal() != (s == JobCompleted || s == JobFailed || s == JobCancelled) {
			t.Errorf("%s: terminal %v", s, s.Terminal())
		}
	}
}
