package test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/readinglibrary/service/adapters/labels/labelstest"
	"github.com/readinglibrary/service/core/library"
)

// TestLabels prints the label sheet of a demo book as the desk does and
// checks who may print it and how bad requests are answered.
func TestLabels(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	ctx := t.Context()
	school, err := s.App.Repos.Schools.Get(ctx, w.schoolA)
	if err != nil {
		t.Fatal(err)
	}
	books, _, err := s.App.Repos.Holdings.BooksPage(ctx, library.BookQuery{SchoolID: w.schoolA, Limit: 10})
	if err != nil || len(books) == 0 {
		t.Fatalf("demo books: %v, %v", books, err)
	}
	book := books[0]
	copies, err := s.App.Repos.Holdings.CopiesOfBook(ctx, w.schoolA, book.ID)
	if err != nil || len(copies) == 0 {
		t.Fatalf("copies of the demo book %q: %d, %v", book.Title, len(copies), err)
	}
	var codes []string
	for _, c := range copies {
		codes = append(codes, c.Code)
	}
	path := "/api/library/copies/labels?book_id=" + book.ID

	// sheet checks a 200 answer: a PDF with one label per copy, each showing
	// the school, the title and its code.
	sheet := func(t *testing.T, r response, pageWidth float64) {
		t.Helper()
		if r.Status != 200 {
			t.Fatalf("status %d, want 200: %.300s", r.Status, r.Body)
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/pdf" {
			t.Errorf("Content-Type %q, want application/pdf", ct)
		}
		if cd, want := r.Header.Get("Content-Disposition"), fmt.Sprintf(`inline; filename="labels-%s.pdf"`, book.ID); cd != want {
			t.Errorf("Content-Disposition %q, want %q", cd, want)
		}
		if !bytes.HasPrefix(r.Body, []byte("%PDF-")) {
			t.Fatalf("body starts with %q, want %%PDF-", r.Body[:min(len(r.Body), 16)])
		}
		pages, err := labelstest.Read(r.Body)
		if err != nil {
			t.Fatal(err)
		}
		var texts []string
		for _, p := range pages {
			if p.Width < pageWidth-1 || p.Width > pageWidth+1 {
				t.Errorf("page width %.1f pt, want %.1f", p.Width, pageWidth)
			}
			texts = append(texts, p.Strings()...)
		}
		var gotCodes []string
		schools, titles := 0, 0
		for _, tx := range texts {
			switch {
			case slices.Contains(codes, tx):
				gotCodes = append(gotCodes, tx)
			case tx == school.Name:
				schools++
			case tx == book.Title:
				titles++
			default:
				t.Errorf("unexpected text %q on the sheet", tx)
			}
		}
		if !slices.Equal(gotCodes, codes) {
			t.Errorf("codes on the sheet %v, want %v (one label per copy, by code)", gotCodes, codes)
		}
		if schools != len(codes) || titles != len(codes) {
			t.Errorf("%d school names and %d titles, want %d of each", schools, titles, len(codes))
		}
	}

	t.Run("LibrarianGetsThePDF", func(t *testing.T) {
		sheet(t, s.do(req{Path: path, Token: w.libA}), 595.28)
	})
	t.Run("Letter", func(t *testing.T) {
		sheet(t, s.do(req{Path: path + "&paper=letter", Token: w.libA}), 612)
	})
	t.Run("StaffGetsThePDF", func(t *testing.T) {
		sheet(t, s.do(req{Path: path, Token: w.staffA}), 595.28)
	})
	t.Run("AdminNamesTheSchool", func(t *testing.T) {
		sheet(t, s.do(req{Path: path + "&schoolId=" + w.schoolA, Token: w.admin}), 595.28)
	})
	t.Run("DeskLinkWithCookieSession", func(t *testing.T) {
		// The desk links to the sheet: a browser follows the link with its
		// session cookie and no Authorization header.
		client := newJar(t)
		if r := doWith(t, client, s.URL, req{Method: http.MethodPost, Path: "/api/auth/login",
			Body: fmt.Sprintf(`{"email":%q,"password":%q}`, demoLibrarian, demoPassword)}); r.Status != 200 {
			t.Fatalf("login: %d %s", r.Status, r.Body)
		}
		sheet(t, doWith(t, client, s.URL, req{Path: path}), 595.28)
	})

	emptyID, _ := w.addBook(t, w.libA, `{"title":"Nothing Yet","author":"Nobody","copies":0}`)
	errorCases := []struct {
		name   string
		path   string
		token  string
		status int
		code   string
		field  string // in details.fields, for 422
	}{
		{"Anonymous", path, "", 401, "unauthorized", ""},
		{"Student", path, w.studentA, 403, "forbidden", ""},
		{"OtherSchoolsLibrarian", path, w.libB, 404, "book_not_found", ""},
		{"OtherSchoolNamed", path + "&schoolId=" + w.schoolA, w.libB, 403, "forbidden", ""},
		{"AdminWithoutSchool", path, w.admin, 422, "validation_failed", "schoolId"},
		{"UnknownBook", "/api/library/copies/labels?book_id=0b0e7ad6-3c39-4d52-9d57-3f1f0e0c1a11", w.libA, 404, "book_not_found", ""},
		{"BookWithoutCopies", "/api/library/copies/labels?book_id=" + emptyID, w.libA, 404, "copy_not_found", ""},
		{"MissingBookID", "/api/library/copies/labels", w.libA, 422, "validation_failed", "book_id"},
		{"EmptyBookID", "/api/library/copies/labels?book_id=", w.libA, 422, "validation_failed", "book_id"},
		{"BookIDNotAUUID", "/api/library/copies/labels?book_id=" + url.QueryEscape("1 OR 1=1"), w.libA, 422, "validation_failed", "book_id"},
		{"RepeatedBookID", path + "&book_id=" + book.ID, w.libA, 422, "validation_failed", "book_id"},
		{"UnknownParameter", path + "&format=png", w.libA, 422, "validation_failed", "format"},
		{"UnknownPaper", path + "&paper=a5", w.libA, 422, "validation_failed", "paper"},
		{"MalformedQuery", path + "&%zz", w.libA, 400, "malformed_query", ""},
	}
	for _, tc := range errorCases {
		t.Run(tc.name, func(t *testing.T) {
			r := s.do(req{Path: tc.path, Token: tc.token})
			if r.Status != tc.status {
				t.Fatalf("status %d, want %d: %.300s", r.Status, tc.status, r.Body)
			}
			code, details := r.apiError(t)
			if code != tc.code {
				t.Errorf("code %q, want %q", code, tc.code)
			}
			if tc.field != "" {
				fields, _ := details["fields"].(map[string]any)
				if _, ok := fields[tc.field]; !ok {
					t.Errorf("details.fields = %v, want an entry for %q", details["fields"], tc.field)
				}
			}
			if strings.HasPrefix(string(r.Body), "%PDF") {
				t.Error("an error answered a PDF")
			}
		})
	}
}
