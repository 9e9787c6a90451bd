package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"reflect"
	"strings"

	"github.com/go-playground/validator/v10"

	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/core/errs"
)

// maxBodyBytes is the largest request body accepted; openapi.json promises
// 413 payload_too_large beyond it.
const maxBodyBytes = 1 << 20

// maxNesting is how deep objects and arrays may nest in a request body. No
// request type goes beyond four levels; without a bound a 1 MiB body of
// "[[[[…" made the strict walk below recurse half a million times, keeping a
// field path per level, which is quadratic: a 60 KB body cost 2 GB and a
// 1 MiB one exhausted memory.
const maxNesting = 32

// validate checks request structs; field names in errors are the JSON names.
var validate = func() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			return ""
		}
		return name
	})
	return v
}()

// readBody reads the whole body, refusing more than maxBodyBytes.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	return readBodyUpTo(w, r, maxBodyBytes, errTooLarge)
}

// readBodyUpTo reads the whole body, refusing more than limit bytes with
// tooLarge (a route with a larger cap than every body's, an image).
func readBodyUpTo(w http.ResponseWriter, r *http.Request, limit int64, tooLarge func() error) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, tooLarge()
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, tooLarge()
		}
		return nil, errs.E(errs.Malformed, errs.CodeMalformedJSON, "The request body could not be read.")
	}
	return body, nil
}

func errTooLarge() error {
	return errs.E(errs.TooLarge, errs.CodePayloadTooLarge, "The request body is larger than 1 MiB.")
}

// decodeJSON reads the request body into dst strictly: the body must be one
// JSON object whose keys exactly match dst's json names (case-sensitive),
// with no duplicate keys at any depth and nothing after it. Then dst is
// validated with its `validate` tags. Errors: Malformed (400), Invalid (422,
// one entry per field), TooLarge (413), UnsupportedMedia (415).
func decodeJSON(w http.ResponseWriter, r *http.Request, dst any) error {
	if err := httpedge.CheckJSON(r); err != nil {
		return err
	}
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	return decodeStrict(body, dst)
}

// decodeStrict is decodeJSON on bytes already read.
func decodeStrict(body []byte, dst any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return errs.E(errs.Malformed, errs.CodeMalformedJSON, "The request body is empty; a JSON object is expected.")
	}
	fields := errs.FieldErrors{}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	first, err := dec.Token()
	if err != nil {
		return malformed(err)
	}
	if d, ok := first.(json.Delim); !ok || d != '{' {
		return errs.E(errs.Malformed, errs.CodeMalformedJSON, "The request body must be a JSON object.")
	}
	if err := walkObject(dec, reflect.TypeOf(dst).Elem(), "", 1, fields); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errs.E(errs.Malformed, errs.CodeMalformedJSON, "The request body has data after the JSON object.")
	}
	if err := fields.Err(); err != nil {
		return err
	}
	if err := json.Unmarshal(body, dst); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return errs.InvalidField(typeErr.Field, "must be "+jsonTypeName(typeErr.Type))
		}
		return malformed(err)
	}
	return validateStruct(dst)
}

func malformed(err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return errs.E(errs.Malformed, errs.CodeMalformedJSON, "The request body is not valid JSON (at byte %d).", syn.Offset)
	}
	return errs.E(errs.Malformed, errs.CodeMalformedJSON, "The request body is not valid JSON.")
}

// maxReportedFields bounds the unknown fields an error lists: a body of many
// thousand unknown keys must not earn an answer larger than itself (found
// while testing the body limit). The request is refused either way.
const maxReportedFields = 20

// errTooDeep refuses a value nested beyond maxNesting; path is where the
// limit was reached.
func errTooDeep(path string) error {
	if path == "" {
		path = "body"
	}
	return errs.InvalidField(path, fmt.Sprintf("is nested too deeply (at most %d levels)", maxNesting))
}

// walkObject consumes an object whose '{' was read, checking keys against t.
// depth is the nesting level of the object (the body itself is 1).
func walkObject(dec *json.Decoder, t reflect.Type, path string, depth int, fields errs.FieldErrors) error {
	if depth > maxNesting {
		return errTooDeep(path)
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var known map[string]reflect.Type
	var elem reflect.Type // for maps
	switch t.Kind() {
	case reflect.Struct:
		known = jsonFields(t)
	case reflect.Map:
		elem = t.Elem()
	default:
		// An object where a scalar is expected: consume it; Unmarshal reports
		// the type error with the field name.
		elem = reflect.TypeOf((*any)(nil)).Elem()
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return malformed(err)
		}
		key, _ := tok.(string)
		name := joinPath(path, key)
		if seen[key] {
			return errs.E(errs.Malformed, errs.CodeMalformedJSON, "The key %q appears more than once.", name)
		}
		seen[key] = true
		next := elem
		if known != nil {
			ft, ok := known[key]
			if !ok {
				if len(fields) < maxReportedFields {
					fields.Add(name, "is not a known field")
				}
				ft = reflect.TypeOf((*any)(nil)).Elem()
			}
			next = ft
		}
		if err := walkValue(dec, next, name, depth, fields); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // the closing '}'
		return malformed(err)
	}
	return nil
}

// walkValue consumes one value inside a container at level depth,
// descending into objects and arrays.
func walkValue(dec *json.Decoder, t reflect.Type, path string, depth int, fields errs.FieldErrors) error {
	tok, err := dec.Token()
	if err != nil {
		return malformed(err)
	}
	if tok == nil && t != nil && t.Kind() != reflect.Interface && t != rawMessageType {
		// null is no value the document allows: an optional field is left
		// out, never sent as null, and null never means "clear it".
		fields.Add(path, "must not be null")
		return nil
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch d {
	case '{':
		return walkObject(dec, t, path, depth+1, fields)
	case '[':
		if depth+1 > maxNesting {
			return errTooDeep(path)
		}
		elem := reflect.TypeOf((*any)(nil)).Elem()
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}
		for i := 0; dec.More(); i++ {
			if err := walkValue(dec, elem, fmt.Sprintf("%s[%d]", path, i), depth+1, fields); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return malformed(err)
		}
	}
	return nil
}

// rawMessageType is the type of fields kept raw to be judged by the handler
// (read-only fields): null is one more value they refuse.
var rawMessageType = reflect.TypeOf(json.RawMessage(nil))

// jsonFields maps the exact json names of t's exported fields to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			// An embedded struct's fields are the body's own, as
			// encoding/json reads them (an unexported one's too).
			maps.Copy(out, jsonFields(f.Type))
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func jsonTypeName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "of another type"
}

// validateStruct runs the validate tags and reports each bad field by its
// JSON path.
func validateStruct(v any) error {
	err := validate.Struct(v)
	if err == nil {
		return nil
	}
	var verrs validator.ValidationErrors
	if !errors.As(err, &verrs) {
		return errs.Wrap(err, "validate request")
	}
	fields := errs.FieldErrors{}
	for _, fe := range verrs {
		ns := fe.Namespace()
		if i := strings.Index(ns, "."); i >= 0 {
			ns = ns[i+1:] // drop the struct type name
		}
		fields.Add(ns, describeTag(fe))
	}
	return fields.Err()
}

func describeTag(fe validator.FieldError) string {
	switch fe.Tag() {
	case "required":
		return "is required"
	case "email":
		return "must be a valid email address"
	case "min":
		if fe.Kind() == reflect.String {
			return "must be at least " + fe.Param() + " characters"
		}
		return "must be at least " + fe.Param()
	case "max":
		if fe.Kind() == reflect.String {
			return "must be at most " + fe.Param() + " characters"
		}
		return "must be at most " + fe.Param()
	case "oneof":
		return "must be one of: " + strings.ReplaceAll(fe.Param(), " ", ", ")
	case "uuid", "uuid4":
		return "must be a UUID"
	case "datetime":
		if fe.Param() == "2006-01-02" {
			return "must be a date YYYY-MM-DD"
		}
		return "must be a time in the layout " + fe.Param()
	case "url", "https_url":
		return "must be a valid URL"
	}
	return "is invalid (" + fe.Tag() + ")"
}

// deref is an optional string field's value, "" when it was left out.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
