package webapp

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
)

// TestSettingsFormSetsCatalogueServer saves the school's catalogue server
// from the settings page, refuses a URL that is not http(s) on the form,
// turns lookups off with an empty field, and keeps the server when a form
// from before the setting leaves the field out.
func TestSettingsFormSetsCatalogueServer(t *testing.T) {
	f := newFixture(t)
	ctx := user.WithPrincipal(context.Background(), user.PrincipalOf(f.librarian))
	const path = "/library/maple.example.org/settings"
	form := func(endpoint ...string) url.Values {
		v := url.Values{"default_loan_days": {"14"}, "max_renewals": {"2"}, "renewal_days": {"7"}}
		if len(endpoint) > 0 {
			v.Set("sru_endpoint", endpoint[0])
		}
		return v
	}
	endpoint := func() string {
		s, err := f.lib.Schools.Settings(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		return s.Settings.CatalogEndpoint
	}
	if got := attr(byID(parse(t, f.do(&f.librarian, http.MethodGet, path, nil).Body.String()), "settings-sru-endpoint"), "value"); got != library.DefaultCatalogEndpoint {
		t.Fatalf("the catalogue server field shows %q, want the default", got)
	}
	const koha = "https://koha.maple.example.org/biblios"
	if rec := f.do(&f.librarian, http.MethodPost, path, form(koha)); rec.Code != http.StatusSeeOther || endpoint() != koha {
		t.Fatalf("save %s: %d, endpoint %q", koha, rec.Code, endpoint())
	}
	rec := f.do(&f.librarian, http.MethodPost, path, form("file:///etc/passwd"))
	if rec.Code != http.StatusUnprocessableEntity || attr(byID(parse(t, rec.Body.String()), "settings-sru-endpoint"), "aria-invalid") != "true" {
		t.Fatalf("a file: URL: %d, want 422 with the field marked", rec.Code)
	}
	if endpoint() != koha {
		t.Fatalf("a refused URL changed the endpoint to %q", endpoint())
	}
	if rec := f.do(&f.librarian, http.MethodPost, path, form()); rec.Code != http.StatusSeeOther || endpoint() != koha {
		t.Fatalf("a form without the field: %d, endpoint %q; want it kept", rec.Code, endpoint())
	}
	if rec := f.do(&f.librarian, http.MethodPost, path, form("")); rec.Code != http.StatusSeeOther || endpoint() != "" {
		t.Fatalf("an emptied field: %d, endpoint %q; want lookups off", rec.Code, endpoint())
	}
}

// TestBooksPageLookupRefusals: a mistyped ISBN is marked on the lookup
// form, and a lookup that cannot be made says so while the add-book form
// keeps the scanned ISBN for typing the book in; staff see no lookup.
func TestBooksPageLookupRefusals(t *testing.T) {
	f := newFixture(t)
	const path = "/library/maple.example.org/books"
	rec := f.do(&f.librarian, http.MethodGet, path+"?isbn=9780142410371", nil)
	doc := parse(t, rec.Body.String())
	if rec.Code != http.StatusOK || attr(byID(doc, "lookup-isbn"), "aria-invalid") != "true" || !strings.Contains(textOf(byID(doc, "isbn-lookup-result")), "ISBN") {
		t.Fatalf("a mistyped ISBN: %d, lookup field invalid %q, message %q", rec.Code, attr(byID(doc, "lookup-isbn"), "aria-invalid"), textOf(byID(doc, "isbn-lookup-result")))
	}
	// The fixture wires no catalogue server client: the lookup cannot be made.
	rec = f.do(&f.librarian, http.MethodGet, path+"?isbn=978-0-14-241037-0", nil)
	doc = parse(t, rec.Body.String())
	if msg := textOf(byID(doc, "isbn-lookup-result")); rec.Code != http.StatusOK || !strings.Contains(msg, "type the book in") {
		t.Fatalf("a lookup that cannot be made: %d, message %q", rec.Code, msg)
	}
	if got := attr(byID(doc, "book-isbn"), "value"); got != "978-0-14-241037-0" {
		t.Errorf("the add-book form's ISBN = %q, want the scanned one", got)
	}
	if byID(parse(t, f.do(&f.staff, http.MethodGet, path, nil).Body.String()), "isbn-lookup-form") != nil {
		t.Errorf("staff see the ISBN lookup")
	}
}
