package test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// openAPIOperation reads one operation of openapi.json.
func openAPIOperation(t *testing.T, path, method string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "adapters", "httpapi", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	op, ok := doc.Paths[path][method].(map[string]any)
	if !ok {
		t.Fatalf("openapi.json has no %s %s", method, path)
	}
	return op
}

// TestOpenAPIReportsRefuseInCSVWhatTheyRefuseInJSON: a page or limit out
// of range is refused with the same 422 whether the report is asked as
// JSON or as a CSV download.
func TestOpenAPIReportsRefuseInCSVWhatTheyRefuseInJSON(t *testing.T) {
	w := newLibraryWorld(t)
	for _, q := range []string{
		"never-borrowed?page=0", "never-borrowed?page=-1", "never-borrowed?limit=0", "never-borrowed?limit=1000",
		"top-titles?limit=0", "top-titles?limit=1000", "hold-queues?limit=0", "hold-queues?limit=1000",
		"app-reading-not-held?limit=0", "app-reading-not-held?limit=1000", "never-borrowed-outside-grades?page=0",
		"never-borrowed-outside-grades?limit=1000",
	} {
		asJSON := w.s.do(req{Path: "/api/library/reports/" + q, Token: w.libA})
		details := wantRefused(t, q+" as JSON", asJSON, 422, "validation_failed")
		if len(deployDig(details, "fields").(map[string]any)) == 0 {
			t.Errorf("%s: details %v name no field", q, details)
		}
		for name, r := range map[string]response{
			"format=csv":      w.s.do(req{Path: "/api/library/reports/" + q + "&format=csv", Token: w.libA}),
			"Accept text/csv": w.s.do(req{Path: "/api/library/reports/" + q, Token: w.libA, Headers: map[string]string{"Accept": "text/csv"}}),
		} {
			wantRefused(t, q+" "+name, r, 422, "validation_failed")
			if got, want := errorPayload(t, r), errorPayload(t, asJSON); !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s answers %v, JSON %v", q, name, got, want)
			}
		}
	}
	// In range, the CSV still has every title, whatever the page.
	for _, title := range []string{"Never Lent One", "Never Lent Two"} {
		w.addBook(t, w.libA, fmt.Sprintf(`{"title":%q,"author":"Shelf Sitter","copies":1}`, title))
	}
	if r := w.s.do(req{Path: "/api/library/reports/never-borrowed?page=9&limit=1&format=csv", Token: w.libA}); r.Status != 200 || strings.Count(string(r.Body), "\n") < 3 {
		t.Errorf("never-borrowed CSV of page 9: %d %s, want every never-borrowed title", r.Status, r.Body)
	}
}

// TestOpenAPIStocktakeReportRefusesLimitZero: limit is 1 to 1000 as
// documented; 0 is refused, not read as the default, and no limit is the
// default 200.
func TestOpenAPIStocktakeReportRefusesLimitZero(t *testing.T) {
	w := newLibraryWorld(t)
	r := w.stocktakePost(w.libA, "", `{}`)
	if r.Status != 201 {
		t.Fatalf("open a stocktake: %d %s", r.Status, r.Body)
	}
	id := r.json(t)["stocktake"].(map[string]any)["id"].(string)
	for _, limit := range []string{"0", "-1", "1001"} {
		details := wantRefused(t, "limit="+limit, w.s.do(req{Path: "/api/library/stocktakes/" + id + "/report?limit=" + limit, Token: w.libA}), 422, "validation_failed")
		if deployDig(details, "fields", "limit") == nil {
			t.Errorf("limit=%s: details %v do not name limit", limit, details)
		}
	}
	if r := w.s.do(req{Path: "/api/library/stocktakes/" + id + "/report", Token: w.libA}); r.Status != 200 || r.json(t)["limit"] != 200.0 {
		t.Errorf("no limit: %d %s, want the default 200", r.Status, r.Body)
	}
	if r := w.s.do(req{Path: "/api/library/stocktakes/" + id + "/report?limit=1", Token: w.libA}); r.Status != 200 || r.json(t)["limit"] != 1.0 {
		t.Errorf("limit=1: %d %s", r.Status, r.Body)
	}
}

// TestOpenAPIHoldingsExportIsNamedAsDocumented: the export's
// Content-Disposition is the one openapi.json describes, for each format.
func TestOpenAPIHoldingsExportIsNamedAsDocumented(t *testing.T) {
	w := newLibraryWorld(t)
	doc, _ := deployDig(openAPIOperation(t, "/api/library/holdings/export", "get"), "responses", "200", "headers", "Content-Disposition", "description").(string)
	for format, name := range map[string]string{"csv": "holdings.csv", "marcxml": "holdings.xml"} {
		r := w.s.do(req{Path: "/api/library/holdings/export?format=" + format, Token: w.libA})
		cd := r.Header.Get("Content-Disposition")
		if r.Status != 200 || cd != `attachment; filename="`+name+`"` {
			t.Errorf("format=%s: %d, Content-Disposition %q", format, r.Status, cd)
		}
		if !strings.Contains(doc, "attachment;") || !strings.Contains(doc, name) {
			t.Errorf("openapi.json describes the export's Content-Disposition as %q, the service sends %q", doc, cd)
		}
	}
}

// TestOpenAPIBodyTypeRefusalsNameEveryType: the holdings import and the
// roster sync take several body types; a body of none of them is refused
// with a message that names each type the document lists.
func TestOpenAPIBodyTypeRefusalsNameEveryType(t *testing.T) {
	w := newLibraryWorld(t)
	for _, path := range []string{"/api/library/holdings/imports", "/api/library/students/sync"} {
		r := w.s.do(req{Method: http.MethodPost, Path: path + "?dry_run=true", Token: w.libA, Body: `{"students":[]}`})
		wantRefused(t, path, r, 415, "unsupported_media_type")
		msg, _ := errorPayload(t, r)["message"].(string)
		content, _ := deployDig(openAPIOperation(t, path, "post"), "requestBody", "content").(map[string]any)
		if len(content) < 3 {
			t.Fatalf("%s documents %d body types", path, len(content))
		}
		for mt := range content {
			if !strings.Contains(msg, mt) {
				t.Errorf("%s: the 415 message %q does not name %s", path, msg, mt)
			}
		}
	}
}
