package webapp

import (
	"net/http"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/user"
)

// An admin's CSV downloads name the school (admins have none of their
// own); a librarian's do not need to.
func TestReportsCSVLinksNameTheSchoolForAdmins(t *testing.T) {
	f := newFixture(t)
	for _, tt := range []struct {
		name   string
		caller *user.Account
		withID bool
	}{{"admin", &f.admin, true}, {"librarian", &f.librarian, false}} {
		rec := f.do(tt.caller, http.MethodGet, "/library/maple.example.org/reports", nil)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: GET reports: %d", tt.name, rec.Code)
		}
		doc := parse(t, rec.Body.String())
		link := byID(doc, "csv-top-titles")
		if link == nil {
			t.Fatalf("%s: no CSV link", tt.name)
		}
		href := attr(link, "href")
		if !strings.HasPrefix(href, "/api/library/reports/top-titles?") || !strings.Contains(href, "format=csv") ||
			strings.Contains(href, "schoolId="+f.school.ID) != tt.withID {
			t.Errorf("%s: CSV link %q", tt.name, href)
		}
	}
}
