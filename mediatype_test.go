package ragd

import "testing"

func TestCheckJSON(t *testing.T) {
	for ct, want := range map[string]bool{"application/json": true, "application/json; charset=utf-8": true,
		"text/plain": false, "": false, "application/jsonx": false, "multipart/form-data; boundary=x": false} {
		err := CheckJSON(ct)
		if (err == nil) != want {
			t.Errorf("CheckJSON(%q) = %v", ct, err)
		}
		if err != nil && (KindOf(err) != KindMediaType || err.Error() == "") {
			t.Errorf("CheckJSON(%q): kind %v, message %q", ct, KindOf(err), err)
		}
	}
	if err := CheckJSON(""); err.Error() != "unsupported Content-Type none: send the body as application/json" {
		t.Errorf("no type: %q", err)
	}
}
