package httpapi

import (
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
)

// The OpenAPI document must describe exactly the routes that exist: every
// route has an operation, and every operation a route.
func TestOpenAPIMatchesRouter(t *testing.T) {
	f := newFixture(t, allowAll)
	rec := f.do(http.MethodGet, "/openapi.json", "")
	if rec.Code != 200 {
		t.Fatalf("GET /openapi.json: %d", rec.Code)
	}
	var doc struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.1") {
		t.Fatalf("openapi = %q, want 3.1.x", doc.OpenAPI)
	}
	var documented, routed []string
	for path, ops := range doc.Paths {
		for method, op := range ops {
			if method == "parameters" { // shared path parameters, not an operation
				continue
			}
			documented = append(documented, strings.ToUpper(method)+" "+path)
			var o struct {
				OperationID string                     `json:"operationId"`
				Responses   map[string]json.RawMessage `json:"responses"`
			}
			if err := json.Unmarshal(op, &o); err != nil || o.OperationID == "" || len(o.Responses) == 0 {
				t.Errorf("%s %s: operation lacks operationId or responses", method, path)
			}
		}
	}
	for _, rt := range f.h.Routes() {
		if rt.Page { // the web app's HTML pages are not part of the JSON API
			continue
		}
		routed = append(routed, rt.Method+" "+rt.Path)
	}
	sort.Strings(documented)
	sort.Strings(routed)
	if strings.Join(documented, "\n") != strings.Join(routed, "\n") {
		t.Fatalf("OpenAPI operations and routes differ.\ndocumented:\n%s\n\nrouted:\n%s", strings.Join(documented, "\n"), strings.Join(routed, "\n"))
	}
}

// loadDocument parses openapi.json with its references resolved.
func loadDocument(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(openAPIDocument)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("openapi.json is not a valid OpenAPI document: %v", err)
	}
	return doc
}

// validSample is a value the schema accepts, for the fields a body must
// carry around the one under test.
func validSample(s *openapi3.Schema) any {
	switch {
	case len(s.Enum) > 0:
		return s.Enum[0]
	case s.Type.Is("integer"), s.Type.Is("number"):
		if s.Min != nil {
			return *s.Min
		}
		return 1
	case s.Type.Is("boolean"):
		return true
	case s.Type.Is("array"):
		if s.Items != nil && s.Items.Value != nil {
			return []any{validSample(s.Items.Value)}
		}
		return []any{}
	case s.Type.Is("object"):
		out := map[string]any{}
		for _, name := range s.Required {
			out[name] = validSample(s.Properties[name].Value)
		}
		return out
	}
	switch s.Format {
	case "uuid":
		return "7d1c2f4e-8a55-4f0e-9b1e-3c2d5a6b7c8d"
	case "email":
		return "someone@example.org"
	case "date":
		return "2031-01-31"
	case "uri":
		return "https://example.org/cover.png"
	}
	if s.Pattern != "" {
		return "fiction"
	}
	return "Long enough value 1"
}

// Every body the document does not allow is refused with 422 naming the
// field, before any lookup: the ids in the path are unknown, so a handler
// that looked first would answer 404. Refused are null for any field, ""
// for an enum, a date or a field with a minimum length, and a number below
// its minimum.
func TestOpenAPIBodiesTheDocumentRefusesAre422(t *testing.T) {
	doc := loadDocument(t)
	f := newFixture(t, allowAll)
	token := "tok-" + f.reader.ID
	param := regexp.MustCompile(`\{[a-z_]+\}`)
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.RequestBody == nil || op.RequestBody.Value.Content.Get("application/json") == nil {
				continue
			}
			schema := op.RequestBody.Value.Content.Get("application/json").Schema.Value
			target := param.ReplaceAllString(path, "0b6f1c1e-2f7e-4a43-9d43-8f0e3c7b9a11")
			try := func(field string, set func(body map[string]any)) {
				t.Helper()
				body := validSample(schema).(map[string]any)
				set(body)
				raw, _ := json.Marshal(body)
				rec := f.do(method, target, string(raw), "Authorization", "Bearer "+token)
				if rec.Code != http.StatusUnprocessableEntity {
					t.Errorf("%s %s %s: %d %s, want 422", method, path, raw, rec.Code, rec.Body)
					return
				}
				fields, _ := errorOf(t, rec).Details["fields"].(map[string]any)
				if _, named := fields[field]; !named {
					t.Errorf("%s %s %s: 422 without naming %s: %s", method, path, raw, field, rec.Body)
				}
			}
			var walk func(prefix string, s *openapi3.Schema, at func(map[string]any) map[string]any)
			walk = func(prefix string, s *openapi3.Schema, at func(map[string]any) map[string]any) {
				for name, ref := range s.Properties {
					p, field := ref.Value, prefix+name
					try(field, func(b map[string]any) { at(b)[name] = nil })
					if len(p.Enum) > 0 {
						try(field, func(b map[string]any) { at(b)[name] = "" })
					}
					if p.Min != nil {
						try(field, func(b map[string]any) { at(b)[name] = *p.Min - 1 })
					}
					if p.Format == "date" || (p.MinLength > 0 && p.Type.Is("string")) {
						try(field, func(b map[string]any) { at(b)[name] = "" })
					}
					if p.Type.Is("object") {
						walk(field+".", p, func(b map[string]any) map[string]any {
							parent := at(b)
							if _, ok := parent[name].(map[string]any); !ok {
								parent[name] = validSample(p)
							}
							return parent[name].(map[string]any)
						})
					}
					if p.Type.Is("array") && p.Items != nil && p.Items.Value.Type.Is("object") {
						walk(field+"[0].", p.Items.Value, func(b map[string]any) map[string]any {
							parent := at(b)
							if l, ok := parent[name].([]any); !ok || len(l) == 0 {
								parent[name] = validSample(p)
							}
							return parent[name].([]any)[0].(map[string]any)
						})
					}
				}
			}
			walk("", schema, func(b map[string]any) map[string]any { return b })
		}
	}
}

// optionalInResponses are the response fields the service leaves out in
// some answers; every other field of a response object is always there.
var optionalInResponses = map[string]string{
	"book":              "a reading-list item carries its book only in GET /v1/users/me/reading-list, and not when the book was deleted",
	"cover":             "a reading-list item's book has a cover only when it has one",
	"invite_token":      "only an invitation without a password gets a token",
	"invite_expires_in": "only an invitation without a password gets a token",
	"student":           "a loan carries its borrower only in GET /api/library/loans, and not once the student is deleted",
	"library_hold":      "only a student who chose that their reading list places holds gets it, when adding a title of (or linked to) their school",
}

// A client generated from the document must be able to rely on it: every
// response object lists the fields it may carry (additionalProperties is
// false, so an undocumented field is a disagreement) and requires the ones
// it always carries. The document also names its tags, and a licence only
// once the repository carries one (a LICENSE file at its root).
func TestOpenAPIResponseSchemasAreClosedAndComplete(t *testing.T) {
	doc := loadDocument(t)
	licensed := false
	for _, name := range []string{"LICENSE", "LICENSE.md", "LICENSE.txt", "COPYING"} {
		if _, err := os.Stat(filepath.Join("..", "..", name)); err == nil {
			licensed = true
		}
	}
	switch named := doc.Info.License != nil && doc.Info.License.Name != ""; {
	case licensed && !named:
		t.Error("info.license is missing, though the repository carries a licence")
	case !licensed && doc.Info.License != nil:
		t.Errorf("info.license names %q, but the repository carries no licence file", doc.Info.License.Name)
	}
	used := map[string]bool{}
	seen := map[*openapi3.Schema]bool{}
	var check func(where string, s *openapi3.Schema)
	check = func(where string, s *openapi3.Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		if len(s.Properties) > 0 {
			if s.AdditionalProperties.Has == nil || *s.AdditionalProperties.Has {
				t.Errorf("%s: an object with properties must say additionalProperties: false", where)
			}
			required := map[string]bool{}
			for _, n := range s.Required {
				required[n] = true
			}
			for name := range s.Properties {
				if _, optional := optionalInResponses[name]; !required[name] && !optional {
					t.Errorf("%s: %s is always returned but not required", where, name)
				}
			}
		}
		for name, p := range s.Properties {
			check(where+"."+name, p.Value)
		}
		if s.Items != nil {
			check(where+"[]", s.Items.Value)
		}
		for _, group := range [][]*openapi3.SchemaRef{s.OneOf, s.AnyOf, s.AllOf} {
			for _, sub := range group {
				check(where, sub.Value)
			}
		}
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			for _, tag := range op.Tags {
				used[tag] = true
			}
			for status, r := range op.Responses.Map() {
				for mt, c := range r.Value.Content {
					if c.Schema != nil {
						check(method+" "+path+" "+status+" "+mt, c.Schema.Value)
					}
				}
			}
		}
	}
	declared := map[string]bool{}
	for _, tag := range doc.Tags {
		declared[tag.Name] = true
	}
	for tag := range used {
		if !declared[tag] {
			t.Errorf("tag %q is used but not declared in the document's tags", tag)
		}
	}
	if len(declared) == 0 {
		t.Error("the document declares no tags")
	}
}

// internalCodes are error codes the JSON API never answers, each with why.
var internalCodes = map[string]string{
	"book_exists":             "catalog store: ids are fresh UUIDs",
	"progress_not_found":      "catalog store: no progress yet is a first read, not an error",
	"session_exists":          "catalog store: a replayed reading session is one session",
	"claim_not_found":         "circulation store: answered as loan_not_found or copy_unavailable",
	"copy_claimed":            "circulation store: answered as copy_unavailable",
	"renewal_exists":          "circulation store: answered as renewal_limit_reached or the renewed loan",
	"refresh_token_exists":    "token store: ids are fresh",
	"refresh_token_not_found": "token store: answered as invalid_refresh_token",
	"rotation_not_found":      "token store: answered as invalid_refresh_token",
	"signing_key_not_found":   "key store: a missing key is made at start",
	"record_exists":           "record store of the migrate command, not the API",
	"invalid_record":          "record store of the migrate command, not the API",
	"invalid_batch_size":      "record store of the migrate command, not the API",
	"unknown_record_kind":     "record store of the migrate command, not the API",
	"malformed_form":          "the web app's HTML forms, not the API",
	"mail_token_exists":       "mailed-token store: tokens are fresh secrets",
	"mail_token_not_found":    "mailed-token store: answered as reset_token_invalid or verification_token_invalid",
	"mail_not_configured":     "wiring: the service always wires a mailer (SMTP or the outbox)",
	"sweep_claimed":           "expiry store: another replica sweeps this slot; nothing answers it",
	"departure_decided":       "departure store: answered as active_loans or student_not_found",
	"hold_ended":              "hold store: answered as hold_not_active, or the loan that fulfils the hold",
	"hold_trapped":            "hold store: the copy goes to the next hold, or stays with the one that took it",
	"trap_not_found":          "hold store: a copy not put aside is free",
	"departure_not_found":     "departure store: a deletion that has ended, settled inside the use cases",
	"charge_exists":           "charge store: a repeated charge of a loan is the charge made before",
	"scan_exists":             "stocktake store: a copy scanned before answers already_scanned, never an error",
	"loan_ended":              "loan store: answered as loan_not_active or the ended loan",

	"external_identity_exists":    "identity link store: answered as external_identity_mismatch",
	"external_identity_not_found": "identity link store: no link yet means a match by email",

	"mail_unavailable": "mailer: mail goes out after the answer; a failure is only logged",
	"not_found":        "default of its kind: every not-found error names its own code",
	"conflict":         "default of its kind: every conflict names its own code",
}

// Every error code the service can produce is in the document (in the
// description of the answers that carry it), unless it is one of the
// internal codes above: a client must be able to look up each code it gets.
// The codes are the constants of core/errs/codes.go; a test there keeps call
// sites from bypassing them with literals.
func TestOpenAPIListsEveryErrorCode(t *testing.T) {
	path := filepath.Join("..", "..", "core", "errs", "codes.go")
	file, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	codes := map[string]string{} // code -> constant
	for _, decl := range file.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.CONST {
			continue
		}
		for _, spec := range gen.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if i >= len(vs.Values) {
					t.Fatalf("%s: constant %s has no value of its own", path, name.Name)
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					t.Fatalf("%s: constant %s is not a string literal", path, name.Name)
				}
				code, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				codes[code] = name.Name
			}
		}
	}
	if len(codes) < 20 {
		t.Fatalf("found only %d error codes in %s; is the parse wrong?", len(codes), path)
	}
	for code, constant := range codes {
		if _, internal := internalCodes[code]; internal {
			continue
		}
		if !strings.Contains(string(openAPIDocument), "`"+code+"`") {
			t.Errorf("error code %q (errs.%s) is not in openapi.json", code, constant)
		}
	}
	for code := range internalCodes {
		if _, ok := codes[code]; !ok {
			t.Errorf("internal code %q is not a constant in %s; drop it from internalCodes", code, path)
		}
	}
}

// A loan whose student deleted their account answers student_id null and
// student_deleted true, as the document says, instead of a marker in a
// field whose format is uuid.
func TestLoanBodyOfAnonymisedLoan(t *testing.T) {
	kept := toLoanBody(circulation.LoanView{Loan: library.Loan{ID: "l1", StudentID: ""}, Status: library.LoanReturned})
	raw, err := json.Marshal(kept)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	if sid, present := m["student_id"]; !present || sid != nil || m["student_deleted"] != true {
		t.Fatalf("anonymised loan = %s, want student_id null and student_deleted true", raw)
	}
	lent := toLoanBody(circulation.LoanView{Loan: library.Loan{ID: "l2", StudentID: "7d1c2f4e-8a55-4f0e-9b1e-3c2d5a6b7c8d"}})
	if lent.StudentID == nil || *lent.StudentID != "7d1c2f4e-8a55-4f0e-9b1e-3c2d5a6b7c8d" || lent.Deleted {
		t.Fatalf("a student's loan = %+v, want its student id", lent)
	}
}

// Each operation's description is its own: one copied from another route
// describes a route that is not there.
func TestOpenAPIOperationDescriptionsAreTheirOwn(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(openAPIDocument, &doc); err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for path, ops := range doc.Paths {
		for method, raw := range ops {
			var op struct {
				Description string `json:"description"`
			}
			if method == "parameters" || json.Unmarshal(raw, &op) != nil || op.Description == "" {
				continue
			}
			here := strings.ToUpper(method) + " " + path
			if other, ok := seen[op.Description]; ok {
				t.Errorf("%s has the description of %s: %.80s", here, other, op.Description)
			}
			seen[op.Description] = here
		}
	}
}

// A route that takes several body types documents them all as its
// request body, and its 415 answer names each of them, as the answer's
// message does.
func TestOpenAPIBodyTypeRefusalsNameEveryType(t *testing.T) {
	f := newFixture(t, allowAll)
	var doc struct {
		Paths map[string]map[string]struct {
			RequestBody struct {
				Content map[string]json.RawMessage `json:"content"`
			} `json:"requestBody"`
			Responses map[string]struct {
				Description string `json:"description"`
			} `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(stripPathParameters(t, openAPIDocument), &doc); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, rt := range f.h.Routes() {
		if !strings.Contains(rt.MediaType, ",") {
			continue
		}
		checked++
		op := doc.Paths[rt.Path][strings.ToLower(rt.Method)]
		types := strings.Split(rt.MediaType, ",")
		var documented []string
		for mt := range op.RequestBody.Content {
			documented = append(documented, mt)
		}
		sort.Strings(types)
		sort.Strings(documented)
		if strings.Join(types, ",") != strings.Join(documented, ",") {
			t.Errorf("%s %s takes %v, documents %v", rt.Method, rt.Path, types, documented)
		}
		for _, mt := range types {
			if d := op.Responses["415"].Description; !strings.Contains(d, "`"+mt+"`") {
				t.Errorf("%s %s: the 415 description does not name %s: %q", rt.Method, rt.Path, mt, d)
			}
		}
	}
	if checked < 3 {
		t.Fatalf("checked %d routes with several body types, want the sign-in, the roster sync and the holdings import at least", checked)
	}
}

// stripPathParameters drops the path-level parameter lists, which are not
// operations.
func stripPathParameters(t *testing.T, raw []byte) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for _, ops := range doc["paths"].(map[string]any) {
		delete(ops.(map[string]any), "parameters")
	}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A request that carries a bearer token is authenticated before its route
// is chosen, so every route, the public ones included, can answer what
// authentication answers: 401 for a bad token, 403 for a suspended
// account's token and 503 when the accounts cannot be read. The document
// lists the three on every operation.
func TestEveryOperationListsTheAuthenticationRefusals(t *testing.T) {
	f := newFixture(t, allowAll)
	token := "Bearer tok-" + f.reader.ID
	public := []string{"/healthz", "/readyz", "/openapi.json", "/.well-known/openid-configuration", "/.well-known/jwks.json"}
	for _, p := range public {
		if rec := f.do(http.MethodGet, p, ""); rec.Code != http.StatusOK {
			t.Fatalf("GET %s without a token = %d, want 200", p, rec.Code)
		}
	}
	f.accountsDown.Store(true)
	for _, p := range public {
		rec := f.do(http.MethodGet, p, "", "Authorization", token)
		if rec.Code != http.StatusServiceUnavailable || errorOf(t, rec).Code != "unavailable" {
			t.Errorf("GET %s with a token while the accounts cannot be read = %d %s, want 503 unavailable", p, rec.Code, rec.Body)
		}
	}
	f.accountsDown.Store(false)
	acct := f.reader
	acct.Suspended = true
	if err := f.repos.Accounts.Update(context.Background(), acct); err != nil {
		t.Fatal(err)
	}
	for _, p := range public {
		rec := f.do(http.MethodGet, p, "", "Authorization", token)
		if rec.Code != http.StatusForbidden || errorOf(t, rec).Code != "account_suspended" {
			t.Errorf("GET %s with a suspended account's token = %d %s, want 403 account_suspended", p, rec.Code, rec.Body)
		}
	}

	doc := loadDocument(t)
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			for _, status := range []int{http.StatusUnauthorized, http.StatusForbidden, http.StatusServiceUnavailable} {
				if op.Responses.Status(status) == nil {
					t.Errorf("%s %s does not list %d", method, path, status)
				}
			}
		}
	}
}
