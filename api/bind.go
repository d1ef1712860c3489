package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"

	"github.com/labstack/echo/v4"

	"ragd"
)

// bind decodes a JSON object body into dst. Malformed JSON is a 400; a value
// of the wrong type is a 422 naming the field, as FastAPI reports it.
func bind(c echo.Context, dst any) error {
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return err // *http.MaxBytesError → 413
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return &ragd.Error{Kind: ragd.KindInvalid, Message: "request body is required",
			Fields: []ragd.FieldError{{Loc: []string{"body"}, Msg: "request body is required (a JSON object)", Type: "missing"}}}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	err = dec.Decode(dst)
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		return typeError(typeErr)
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

func typeError(e *json.UnmarshalTypeError) error {
	if e.Field == "" {
		return &ragd.Error{Kind: ragd.KindInvalid, Message: "body must be a JSON object",
			Fields: []ragd.FieldError{{Loc: []string{"body"}, Msg: "body must be a JSON object, not " + e.Value, Type: "type_error"}}}
	}
	loc := append([]string{"body"}, strings.Split(e.Field, ".")...)
	t := e.Type
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	msg := fmt.Sprintf("%s must be %s, not %s", e.Field, jsonTypeName(t.Kind()), e.Value)
	return &ragd.Error{Kind: ragd.KindInvalid, Message: msg, Fields: []ragd.FieldError{{Loc: loc, Msg: msg, Type: "type_error"}}}
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
