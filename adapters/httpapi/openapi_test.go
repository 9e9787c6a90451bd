package httpapi

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"testing"
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
