package webapp

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service"
	"github.com/readinglibrary/service/core/user"
)

type catalogRow struct {
	ID, Title, Author, ISBN string
	Total, Available        int
}

type catalogView struct {
	base
	Search string
	Books  []catalogRow
	Total  int // books matching the search, on all pages
	PageNo int
	Prev   string // link to the previous page, "" on the first
	Next   string // link to the next page, "" on the last
}

// catalogPageSize is how many books one page of the public catalog shows.
const catalogPageSize = 50

// catalog is the public catalog for students and parents: the same data
// and the same search (title or author contains the text) as GET
// /api/library/catalog/{domain}, a page at a time. Signed-in members of the
// school also get their navigation.
func (a *App) catalog(w http.ResponseWriter, r *http.Request) {
	if !a.require(w, r, "read", "library:catalog") {
		return
	}
	search := strings.TrimSpace(r.URL.Query().Get("search"))
	page, err := strconv.Atoi(r.URL.Query().Get("page"))
	if err != nil || page < 1 {
		page = 1 // a page link typed by hand falls back to the first page
	}
	res, err := a.deps.Library.PublicCatalog(r.Context(), mux.Vars(r)["domain"], service.CatalogQuery{Page: page, Limit: catalogPageSize, Search: search})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	school := res.School
	v := catalogView{Search: search, Total: res.Total, PageNo: res.Page}
	v.base = a.newBase(r, "Catalog", "catalog")
	if !user.PrincipalFrom(r.Context()).IsAnonymous() {
		if own, err := a.deps.Library.SchoolByDomain(r.Context(), school.Domain); err == nil {
			v.base = a.schoolBase(r, own, "Catalog", "catalog")
		}
	}
	v.School = &library.School{ID: school.ID, Name: school.Name, Domain: school.Domain}
	for _, e := range res.Entries {
		v.Books = append(v.Books, catalogRow{ID: e.Book.ID, Title: e.Book.Title, Author: e.Book.Author, ISBN: e.Book.ISBN,
			Total: e.Total, Available: e.Available})
	}
	link := func(p int) string {
		q := url.Values{}
		if search != "" {
			q.Set("search", search)
		}
		q.Set("page", strconv.Itoa(p))
		return "/library/" + school.Domain + "/catalog?" + q.Encode()
	}
	if res.Page > 1 {
		v.Prev = link(res.Page - 1)
	}
	if res.Page*res.Limit < res.Total {
		v.Next = link(res.Page + 1)
	}
	a.render(w, r, http.StatusOK, "catalog", v)
}
