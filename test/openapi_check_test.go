package test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// apiDocument is openapi.json, loaded, checked and routed once for the whole
// suite: every response that doWith receives is validated against it.
type apiDocument struct {
	doc    *openapi3.T
	router routers.Router
	// errorSchema is the error envelope, which answers paths and methods the
	// document does not have (404 not_found, 405 method_not_allowed).
	errorSchema *openapi3.Schema
}

var loadAPIDocument = sync.OnceValues(func() (*apiDocument, error) {
	// The holdings export answers MARCXML, a document of text.
	openapi3filter.RegisterBodyDecoder("application/xml", openapi3filter.PlainBodyDecoder)
	path := filepath.Join("..", "adapters", "httpapi", "openapi.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(raw)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("%s is not a valid OpenAPI document: %w", path, err)
	}
	// Answers are checked by kin-openapi's own schema validator, which
	// knows everything this document uses (type arrays with null, oneOf,
	// closed objects, formats). Left at 3.1, ValidateResponse compiles a
	// JSON Schema 2020-12 validator for every answer: 4 ms each instead of
	// 0.4, minutes over the suite. The document was validated as 3.1 above.
	doc.OpenAPI = "3.0.3"
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("route %s: %w", path, err)
	}
	errRef := doc.Components.Schemas["Error"]
	if errRef == nil || errRef.Value == nil {
		return nil, fmt.Errorf("%s has no Error schema", path)
	}
	return &apiDocument{doc: doc, router: router, errorSchema: errRef.Value}, nil
})

// schemaOptions assert the formats the document uses beyond date and
// date-time, which kin-openapi knows itself.
var schemaOptions = []openapi3.SchemaValidationOption{
	openapi3.WithStringFormatValidator("uuid", openapi3.NewRegexpFormatValidator(openapi3.FormatOfStringForUUIDOfRFC9562)),
	openapi3.WithStringFormatValidator("email", openapi3.NewRegexpFormatValidator(openapi3.FormatOfStringForEmail)),
}

// checkAgainstDocument reports (t.Errorf, so it is safe from any goroutine)
// where a response disagrees with openapi.json: a status the operation does
// not list, a content type it does not offer, a body its schema refuses
// (an undocumented field included: every object schema of the document is
// closed). A request to a path or method the document lacks must be
// answered by the error envelope with 404 or 405.
func checkAgainstDocument(t testing.TB, hr *http.Request, status int, header http.Header, body []byte) {
	t.Helper()
	api, err := loadAPIDocument()
	if err != nil {
		t.Errorf("openapi.json: %v", err)
		return
	}
	what := hr.Method + " " + hr.URL.RequestURI()
	if status == http.StatusMovedPermanently && path.Clean(hr.URL.Path) != hr.URL.Path && header.Get("Location") != "" {
		return // the router sends an unclean path to its clean form before any operation
	}
	// The service routes the decoded path (/api/library/%6coans is
	// /api/library/loans); the document's router matches the raw one.
	found := hr.Clone(context.Background())
	found.URL.RawPath = ""
	route, params, err := api.router.FindRoute(found)
	if err != nil {
		if !errors.Is(err, routers.ErrPathNotFound) && !errors.Is(err, routers.ErrMethodNotAllowed) {
			t.Errorf("%s: finding the operation in openapi.json: %v", what, err)
			return
		}
		if hr.Method == http.MethodOptions && hr.Header.Get("Access-Control-Request-Method") != "" {
			return // a CORS preflight is answered by the protocol, not by an operation
		}
		want := http.StatusNotFound
		if errors.Is(err, routers.ErrMethodNotAllowed) {
			want = http.StatusMethodNotAllowed
		}
		if status != want && status != http.StatusTooManyRequests {
			t.Errorf("%s is not in openapi.json (%v) but was answered %d, not %d: %s", what, err, status, want, truncate(body))
			return
		}
		if hr.Method == http.MethodHead {
			return // no body to check
		}
		if !strings.HasPrefix(header.Get("Content-Type"), "application/json") {
			t.Errorf("%s: %d with Content-Type %q, not the error envelope", what, status, header.Get("Content-Type"))
			return
		}
		var v any
		if err := jsonUnmarshalNumber(body, &v); err != nil {
			t.Errorf("%s: %d body is not JSON: %v", what, status, err)
			return
		}
		// A body that passes is checked failing fast: the messages of
		// every branch of a oneOf that does not match (most of them) were
		// most of the check's time. A body that fails is checked again for
		// every message.
		if api.errorSchema.VisitJSON(v, append(slices.Clone(schemaOptions), openapi3.VisitAsResponse(), openapi3.FailFast())...) == nil {
			return
		}
		if err := api.errorSchema.VisitJSON(v, append(slices.Clone(schemaOptions), openapi3.VisitAsResponse())...); err != nil {
			t.Errorf("%s: %d body is not the error envelope: %v", what, status, err)
		}
		return
	}
	validate := func(multi bool, opts ...openapi3.SchemaValidationOption) error {
		in := &openapi3filter.ResponseValidationInput{
			RequestValidationInput: &openapi3filter.RequestValidationInput{Request: hr, PathParams: params, Route: route},
			Status:                 status,
			Header:                 header,
			Options: &openapi3filter.Options{
				IncludeResponseStatus:   true,
				MultiError:              multi,
				SchemaValidationOptions: append(slices.Clone(schemaOptions), opts...),
			},
		}
		in.SetBodyBytes(body)
		return openapi3filter.ValidateResponse(context.Background(), in)
	}
	if validate(false, openapi3.FailFast()) == nil {
		return
	}
	if err := validate(true); err != nil {
		t.Errorf("%s: the %d response disagrees with openapi.json (operation %s): %v\nbody: %s", what, status, route.Operation.OperationID, err, truncate(body))
	}
}

func truncate(b []byte) []byte {
	if len(b) > 2000 {
		return append(bytes.Clone(b[:2000]), "…"...)
	}
	return b
}

func jsonUnmarshalNumber(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the JSON value")
	}
	return nil
}
