package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"ragd"
)

// bind decodes a JSON object body into dst. A body not labelled
// application/json is a 415, malformed JSON a 400, a value of the wrong type
// a 422 naming the field, as FastAPI reports it.
func bind(c echo.Context, dst any) error { return decodeBody(c, dst, false) }

// bindStrict is bind refusing fields dst does not have (422 naming
// them), for a body whose every field changes something.
func bindStrict(c echo.Context, dst any) error { return decodeBody(c, dst, true) }

func decodeBody(c echo.Context, dst any, strict bool) error {
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return err // *http.MaxBytesError → 413
	}
	if len(bytes.TrimSpace(body)) == 0 {
		// Nothing to misread, whatever the label: say what is missing.
		return &ragd.Error{Kind: ragd.KindInvalid, Message: "request body is required",
			Fields: []ragd.FieldError{{Loc: []string{"body"}, Msg: "request body is required (a JSON object)", Type: "missing"}}}
	}
	if err := ragd.CheckJSON(c.Request().Header.Get(echo.HeaderContentType)); err != nil {
		return err
	}
	if esc, ok := loneSurrogate(body); ok {
		// json would read it as U+FFFD, silently.
		msg := "a string holds " + esc + ", half of a UTF-16 surrogate pair without its other half: it stands for no character"
		return &ragd.Error{Kind: ragd.KindInvalid, Message: msg,
			Fields: []ragd.FieldError{{Loc: []string{"body"}, Msg: msg, Type: "value_error"}}}
	}
	if bytes.Equal(bytes.TrimSpace(body), []byte("null")) {
		// json decodes null into a struct as nothing at all, which would
		// pass as an empty object.
		return notAnObject("null")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if strict {
		dec.DisallowUnknownFields()
	}
	err = dec.Decode(dst)
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		return typeError(reflect.TypeOf(dst), typeErr)
	case err != nil && strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return &ragd.Error{Kind: ragd.KindInvalid, Message: "unknown field " + name,
			Fields: []ragd.FieldError{{Loc: []string{"body", name}, Msg: "unknown field " + strconv.Quote(name), Type: "extra_forbidden"}}}
	case errors.As(err, &syntaxErr), errors.Is(err, io.ErrUnexpectedEOF):
		return echo.NewHTTPError(http.StatusBadRequest, "malformed JSON body: "+err.Error())
	case err != nil:
		return echo.NewHTTPError(http.StatusBadRequest, "malformed JSON body: "+err.Error())
	}
	if dec.More() {
		return echo.NewHTTPError(http.StatusBadRequest, "malformed JSON body: more than one JSON value")
	}
	return nil
}

// loneSurrogate finds in a JSON body an escaped UTF-16 surrogate
// (\ud800-\udfff) that is not half of a pair, a high one followed by a
// low one, and returns the escape. Escapes stand only in strings, and a
// backslash escaping a backslash is skipped with it.
func loneSurrogate(body []byte) (string, bool) {
	for i := bytes.IndexByte(body, '\\'); i >= 0 && i+1 < len(body); {
		step := 2
		if r, ok := escapedUnit(body[i:]); ok && r >= 0xD800 && r <= 0xDFFF {
			low, paired := escapedUnit(body[i+6:])
			if r > 0xDBFF || !paired || low < 0xDC00 || low > 0xDFFF {
				return string(body[i : i+6]), true
			}
			step = 12
		}
		next := bytes.IndexByte(body[i+step:], '\\')
		if next < 0 {
			break
		}
		i += step + next
	}
	return "", false
}

// escapedUnit reads a \uXXXX escape at the start of b.
func escapedUnit(b []byte) (rune, bool) {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b[2:6]), 16, 16)
	return rune(v), err == nil
}

// typeError reports a value of the wrong type at its JSON path in dst's type.
func typeError(dst reflect.Type, e *json.UnmarshalTypeError) error {
	if e.Field == "" {
		return notAnObject(e.Value)
	}
	path := jsonPath(dst, e.Field)
	t := e.Type
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	msg := fmt.Sprintf("%s must be %s, not %s", strings.Join(path, "."), jsonTypeName(t.Kind()), e.Value)
	return &ragd.Error{Kind: ragd.KindInvalid, Message: msg,
		Fields: []ragd.FieldError{{Loc: append([]string{"body"}, path...), Msg: msg, Type: "type_error"}}}
}

// notAnObject refuses a body that is a JSON value of another kind (what
// json names it: "array", "string", "null" …).
func notAnObject(kind string) error {
	return &ragd.Error{Kind: ragd.KindInvalid, Message: "body must be a JSON object",
		Fields: []ragd.FieldError{{Loc: []string{"body"}, Msg: "body must be a JSON object, not " + kind, Type: "type_error"}}}
}

// jsonPath turns json.UnmarshalTypeError.Field, which names each embedded
// struct crossed by its Go name ("IndexRequest.tags"), into the path of JSON
// keys the client sent (["tags"]): Go type names mean nothing to a client
// and tell it about the implementation.
func jsonPath(t reflect.Type, field string) []string {
	segs := strings.Split(field, ".")
	path := make([]string, 0, len(segs))
	for i, seg := range segs {
		t = elemType(t)
		if t.Kind() != reflect.Struct {
			path = append(path, seg)
			continue
		}
		// An embedded struct is never the last segment: the field at fault
		// is inside it.
		if f, ok := t.FieldByName(seg); ok && f.Anonymous && i < len(segs)-1 && jsonName(f) == "" {
			t = f.Type
			continue
		}
		path = append(path, seg)
		for j := range t.NumField() {
			if f := t.Field(j); (!f.Anonymous || jsonName(f) != "") && strings.EqualFold(jsonKey(f), seg) {
				t = f.Type
				break
			}
		}
	}
	return path
}

// elemType strips pointers, slices, arrays and maps down to the type that
// holds the next path segment.
func elemType(t reflect.Type) reflect.Type {
	for {
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
			t = t.Elem()
		default:
			return t
		}
	}
}

// jsonName is the name a field's json tag gives it, "" when none.
func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name
}

// jsonKey is the JSON key of a field: its tag name, else its Go name.
func jsonKey(f reflect.StructField) string {
	if name := jsonName(f); name != "" {
		return name
	}
	return f.Name
}

func jsonTypeName(k reflect.Kind) string {
	switch k {
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "an integer"
	case reflect.Float64, reflect.Float32:
		return "a number"
	case reflect.Bool:
		return "a boolean"
	case reflect.String:
		return "a string"
	case reflect.Slice:
		return "an array"
	default:
		return "an object"
	}
}
