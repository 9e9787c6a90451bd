package webapp

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/collection"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/user"
)

type catalogRow struct {
	ID, Title, Author, ISBN string
	Total, Available, Holds int
	Reference               bool // not for loan
	// Mine is the signed-in student's open hold on the title; nil for none.
	Mine *holdRow
	// Wanted: the title is on the signed-in student's want-to-read list.
	Wanted bool
	// Rating says the title's approved reviews in words ("" for none).
	Rating string
	// Cover is where the title's cover is served, "" without one.
	Cover string
	// InApp names the reading app's book of the same work, "" for none.
	InApp string
}

// Holdable reports whether a student could place a hold on the title: a
// lendable one with no copy on the shelf, that they hold not already.
func (c catalogRow) Holdable() bool {
	return !c.Reference && c.Available == 0 && c.Total > 0 && c.Mine == nil
}

type catalogView struct {
	base
	Search string
	Books  []catalogRow
	Pages  pager
	// CanHold is set for a student of the catalogue's school, who may
	// place holds from it.
	CanHold bool
	// CanWant is set for a student of the catalogue's school, who keeps a
	// want-to-read list from it.
	CanWant bool
}

// pager is the navigation of a paged list (the "pages" template).
type pager struct {
	Name   string // the list's name, which prefixes the links' ids
	Label  string // what the navigation is called for screen readers
	Total  int    // entries matching the search, on all pages
	PageNo int
	Prev   string // link to the previous page, "" on the first
	Next   string // link to the next page, "" on the last
}

// newPager links the pages before and after page of a list at path,
// keeping the search.
func newPager(name, label, path, search string, page, limit, total int) pager {
	q := url.Values{}
	if search != "" {
		q.Set("search", search)
	}
	return newFilteredPager(name, label, path, q, page, limit, total)
}

// newFilteredPager is newPager for a list whose links keep the query's
// filters.
func newFilteredPager(name, label, path string, filters url.Values, page, limit, total int) pager {
	link := func(p int) string {
		q := url.Values{}
		for k, v := range filters {
			q[k] = v
		}
		q.Set("page", strconv.Itoa(p))
		return path + "?" + q.Encode()
	}
	v := pager{Name: name, Label: label, Total: total, PageNo: page}
	if page > 1 {
		v.Prev = link(page - 1)
	}
	if page*limit < total {
		v.Next = link(page + 1)
	}
	return v
}

// pageParam reads the page of a list's URL; a page link typed by hand
// that is not a number falls back to the first page.
func pageParam(r *http.Request) int {
	page, err := strconv.Atoi(r.URL.Query().Get("page"))
	if err != nil || page < 1 {
		return 1
	}
	return page
}

// pageSize is how many entries one page of a list (the catalog, the books,
// the students) shows.
const pageSize = 50

// catalog is the public catalog for students and parents: the same data
// and the same search (every word begins a word of the title or the author) as GET
// /api/library/catalog/{domain}, a page at a time. Signed-in members of the
// school also get their navigation.
func (a *App) catalog(w http.ResponseWriter, r *http.Request) {
	search := strings.TrimSpace(r.URL.Query().Get("search"))
	res, err := a.deps.Library.Catalog.Page(r.Context(), mux.Vars(r)["domain"], usecase.ListQuery{Page: pageParam(r), Limit: pageSize, Search: search})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	school := res.School
	v := catalogView{Search: search, Pages: newPager("catalog", tr(r, "Catalog pages"), "/library/"+school.Domain+"/catalog", search, res.Page, res.Limit, res.Total)}
	v.base = a.newBase(r, "Catalog", "catalog")
	p := user.PrincipalFrom(r.Context())
	if !p.IsAnonymous() {
		if own, err := a.deps.Library.Schools.ByDomain(r.Context(), school.Domain); err == nil {
			v.base = a.schoolBase(r, own, "Catalog", "catalog")
		}
	}
	v.Flash = a.takeFlash(w, r)
	v.School = &library.School{ID: school.ID, Name: school.Name, Domain: school.Domain}
	marks, err := a.studentMarks(r, school)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	v.CanHold, v.CanWant = marks.canHold, marks.canWant
	covers, err := a.coverPaths(r, school, res.Entries)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	for _, e := range res.Entries {
		v.Books = append(v.Books, marks.row(e, covers[e.Book.ID]))
	}
	a.render(w, r, http.StatusOK, "catalog", v)
}

// studentMarks is what a signed-in student of the school sees beside the
// catalogue's titles: their open holds and their want-to-read list, with
// whether they may place holds and keep the list from it. Anyone else gets
// none of it.
type studentMarks struct {
	holds            map[string]holdRow // open holds by title
	wanted           map[string]bool
	canHold, canWant bool
	lang             i18n.Lang // the page's, for the ratings in words
}

func (a *App) studentMarks(r *http.Request, school library.School) (studentMarks, error) {
	m := studentMarks{holds: map[string]holdRow{}, wanted: map[string]bool{}, lang: i18n.From(r.Context())}
	p := user.PrincipalFrom(r.Context())
	if p.Role != user.RoleStudent || p.SchoolID != school.ID {
		return m, nil
	}
	if a.allowed(r, "create", "library:holds") && a.allowed(r, "read", "library:ownholds") {
		holds, err := a.deps.Library.Holds.StudentHolds(r.Context())
		if err != nil {
			return m, err
		}
		for _, h := range holds {
			if h.Status == library.HoldWaiting || h.Status == library.HoldReady {
				m.holds[h.Hold.BookID] = toHoldRow(h)
			}
		}
		m.canHold = true
	}
	if a.allowed(r, "update", "library:ownwants") {
		ids, err := a.deps.Library.WantToRead.BookIDs(r.Context())
		if err != nil {
			return m, err
		}
		for _, id := range ids {
			m.wanted[id] = true
		}
		m.canWant = true
	}
	return m, nil
}

// row is a catalogue entry as the student sees it, with its cover's path.
func (m studentMarks) row(e collection.CatalogEntry, cover string) catalogRow {
	row := catalogRow{Wanted: m.wanted[e.Book.ID], Rating: ratingText(m.lang, e.Rating), ID: e.Book.ID, Title: e.Book.Title, Author: e.Book.Author, ISBN: e.Book.ISBN,
		Total: e.Total, Available: e.Available, Holds: e.Holds, Reference: library.BookCategory(e.Book) == library.CategoryReference, Cover: cover}
	if e.InApp != nil {
		row.InApp = e.InApp.AppBook.Title
	}
	if h, ok := m.holds[e.Book.ID]; ok {
		row.Mine = &h
	}
	return row
}

// backFrom is where a student's catalogue form returns to: the catalogue
// page with its search ("catalog"), the title's page ("title") or their
// own page ("mine"); def for a form that names none.
func backFrom(school library.School, form url.Values, def string) string {
	switch form.Get("from") {
	case "catalog":
		return catalogPath(school, form.Get("search"))
	case "title":
		return titlePath(school.Domain, strings.TrimSpace(form.Get("book_id")))
	case "mine":
		return schoolPath(school)
	case "picks":
		return schoolPath(school) + "/recommended"
	}
	return def
}

// catalogPath is the address of the catalogue page with a search.
func catalogPath(school library.School, search string) string {
	back := schoolPath(school) + "/catalog"
	if search = strings.TrimSpace(search); search != "" {
		back += "?search=" + url.QueryEscape(search)
	}
	return back
}

// titlePath is the address of a title's page in the catalogue.
func titlePath(domain, bookID string) string {
	return "/library/" + domain + "/catalog/title?book_id=" + url.QueryEscape(bookID)
}
