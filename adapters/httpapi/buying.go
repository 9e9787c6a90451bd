package httpapi

import (
	"net/http"
	"strconv"

	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/usecase"
)

// ----- the buying reports (issue 29 §5): what the students read in the
// app and the shelf lacks, and never-borrowed books no grade reads -----

type appReadingBody struct {
	AppBookID string `json:"app_book_id"`
	Title     string `json:"title"`
	Author    string `json:"author"`
	ISBN      string `json:"isbn"`
	Students  int    `json:"students"`
	Finished  int    `json:"finished"`
}

type appReadingNotHeldBody struct {
	SchoolID string           `json:"school_id"`
	From     string           `json:"from"`
	To       string           `json:"to"`
	Timezone string           `json:"timezone"`
	Titles   []appReadingBody `json:"titles"`
}

func (h *handler) reportAppReadingNotHeld(w http.ResponseWriter, r *http.Request) {
	p, asCSV, ok := reportParams(w, r, "from", "to", "limit")
	if !ok {
		return
	}
	limit, err := intParam(p, "limit", library.DefaultAppReadingNotHeld)
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	rep, err := h.deps.Library.Reports.AppReadingNotHeld(r.Context(), p["schoolId"], p["from"], p["to"], limit)
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	body := appReadingNotHeldBody{SchoolID: rep.School.ID, From: rep.Period.From, To: rep.Period.To, Timezone: rep.School.Settings.Zone(),
		Titles: []appReadingBody{}}
	t := reportTable{header: []string{"rank", "title", "author", "isbn", "students", "finished", "app_book_id"}}
	for i, a := range rep.Titles {
		body.Titles = append(body.Titles, appReadingBody{AppBookID: a.Book.ID, Title: a.Book.Title, Author: a.Book.Author, ISBN: a.Book.ISBN,
			Students: a.Students, Finished: a.Finished})
		t.rows = append(t.rows, []string{strconv.Itoa(i + 1), a.Book.Title, a.Book.Author, a.Book.ISBN, strconv.Itoa(a.Students),
			strconv.Itoa(a.Finished), a.Book.ID})
	}
	writeReport(w, asCSV, library.ReportAppReadingNotHeld+"-"+rep.Period.From+"-"+rep.Period.To, t, body)
}

type offLevelBookBody struct {
	BookID       string `json:"book_id"`
	Title        string `json:"title"`
	Author       string `json:"author"`
	ISBN         string `json:"isbn"`
	ReadingLevel string `json:"reading_level"`
	AgeMin       int    `json:"age_min"`
	AgeMax       int    `json:"age_max"`
	Copies       int    `json:"copies"`
	Reason       string `json:"reason"`
}

type outsideGradesBody struct {
	SchoolID string             `json:"school_id"`
	Grades   []string           `json:"grades"`
	Books    []offLevelBookBody `json:"books"`
	// Pagination is of the books listed.
	Pagination pagination `json:"pagination"`
}

func (h *handler) reportOutsideGradesUnused(w http.ResponseWriter, r *http.Request) {
	p, asCSV, ok := reportParams(w, r, "page", "limit")
	if !ok {
		return
	}
	page, limit, err := pageParams(p, library.DefaultReportPage)
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	rep, err := h.deps.Library.Reports.OutsideGradesUnused(r.Context(), p["schoolId"], usecase.ListQuery{Page: page, Limit: limit}, asCSV)
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	body := outsideGradesBody{SchoolID: rep.School.ID, Grades: []string{}, Books: []offLevelBookBody{}, Pagination: pageOf(rep.Page, rep.Limit, rep.Total)}
	for _, g := range rep.Grades {
		body.Grades = append(body.Grades, library.GradesText([]int{g}))
	}
	t := reportTable{header: []string{"title", "author", "isbn", "reading_level", "age_min", "age_max", "copies", "reason", "book_id"}}
	for _, b := range rep.Books {
		body.Books = append(body.Books, offLevelBookBody{BookID: b.Book.ID, Title: b.Book.Title, Author: b.Book.Author, ISBN: b.Book.ISBN,
			ReadingLevel: b.Book.ReadingLevel, AgeMin: b.Book.AgeMin, AgeMax: b.Book.AgeMax, Copies: b.Copies, Reason: b.Reason})
		t.rows = append(t.rows, []string{b.Book.Title, b.Book.Author, b.Book.ISBN, b.Book.ReadingLevel, ageCell(b.Book.AgeMin),
			ageCell(b.Book.AgeMax), strconv.Itoa(b.Copies), b.Reason, b.Book.ID})
	}
	writeReport(w, asCSV, library.ReportOutsideGradesUnused, t, body)
}

// ageCell writes an interest age, 0 (none) as an empty cell.
func ageCell(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}
