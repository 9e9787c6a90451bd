package httpapi

import (
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/core/csvout"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/usecase"
)

// ----- reports: each a JSON body or, with ?format=csv or Accept: text/csv,
// a CSV download of the same rows -----

// reportTable is a report as CSV: a header row and the rows.
type reportTable struct {
	header []string
	rows   [][]string
}

// wantsCSV reads the report's format: ?format=csv or json, else an Accept
// header that prefers text/csv to JSON.
// Errors: Invalid "format".
func wantsCSV(r *http.Request, p map[string]string) (bool, error) {
	switch p["format"] {
	case "csv":
		return true, nil
	case "json":
		return false, nil
	case "":
	default:
		return false, errs.InvalidField("format", "must be json or csv")
	}
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mt {
		case "text/csv":
			return true, nil
		case "application/json", "*/*", "application/*":
			return false, nil
		}
	}
	return false, nil
}

// writeCSV answers the table as an attachment named name.csv, through the
// service's one CSV writer (cells a spreadsheet would run are made text).
func writeCSV(w http.ResponseWriter, name string, t reportTable) {
	hd := w.Header()
	hd.Set("Content-Type", "text/csv; charset=utf-8")
	hd.Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s.csv"`, safeFileName(name)))
	w.WriteHeader(http.StatusOK)
	cw := csvout.NewWriter(w)
	_ = cw.Write(t.header)
	for _, row := range t.rows {
		_ = cw.Write(row)
	}
	cw.Flush()
}

// writeReport answers a report as the CSV download name.csv or as its
// JSON body.
func writeReport(w http.ResponseWriter, asCSV bool, name string, t reportTable, body any) {
	if asCSV {
		writeCSV(w, name, t)
		return
	}
	httpedge.WriteJSON(w, http.StatusOK, body)
}

// reportParams reads a report's query string: schoolId and format, and
// the report's own parameters.
func reportParams(w http.ResponseWriter, r *http.Request, own ...string) (map[string]string, bool, bool) {
	p, ok := params(w, r, append([]string{"schoolId", "format"}, own...)...)
	if !ok {
		return nil, false, false
	}
	asCSV, err := wantsCSV(r, p)
	if err != nil {
		httpedge.WriteError(w, r, err)
		return nil, false, false
	}
	return p, asCSV, true
}

type monthCountBody struct {
	Month string `json:"month"`
	Loans int    `json:"loans"`
}

type loansPerMonthBody struct {
	SchoolID string           `json:"school_id"`
	From     string           `json:"from"`
	To       string           `json:"to"`
	Timezone string           `json:"timezone"`
	Total    int              `json:"total"`
	Months   []monthCountBody `json:"months"`
}

func (h *handler) reportLoansPerMonth(w http.ResponseWriter, r *http.Request) {
	p, asCSV, ok := reportParams(w, r, "from", "to")
	if !ok {
		return
	}
	rep, err := h.deps.Library.Reports.LoansPerMonth(r.Context(), p["schoolId"], p["from"], p["to"])
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	body := loansPerMonthBody{SchoolID: rep.School.ID, From: rep.Range.From, To: rep.Range.To, Timezone: rep.School.Settings.Zone(),
		Total: rep.Total, Months: []monthCountBody{}}
	t := reportTable{header: []string{"month", "loans"}}
	for _, m := range rep.Months {
		body.Months = append(body.Months, monthCountBody(m))
		t.rows = append(t.rows, []string{m.Month, strconv.Itoa(m.Loans)})
	}
	writeReport(w, asCSV, library.ReportLoansPerMonth+"-"+rep.Range.From+"-"+rep.Range.To, t, body)
}

type titleLoansBody struct {
	BookID string `json:"book_id"`
	Title  string `json:"title"`
	Author string `json:"author"`
	Loans  int    `json:"loans"`
}

type topTitlesBody struct {
	SchoolID string           `json:"school_id"`
	From     string           `json:"from"`
	To       string           `json:"to"`
	Titles   []titleLoansBody `json:"titles"`
}

func (h *handler) reportTopTitles(w http.ResponseWriter, r *http.Request) {
	p, asCSV, ok := reportParams(w, r, "from", "to", "limit")
	if !ok {
		return
	}
	limit, err := intParam(p, "limit", library.DefaultTopTitles)
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	rep, err := h.deps.Library.Reports.TopTitles(r.Context(), p["schoolId"], p["from"], p["to"], limit)
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	body := topTitlesBody{SchoolID: rep.School.ID, From: rep.Range.From, To: rep.Range.To, Titles: []titleLoansBody{}}
	t := reportTable{header: []string{"rank", "title", "author", "loans", "book_id"}}
	for i, b := range rep.Titles {
		body.Titles = append(body.Titles, titleLoansBody(b))
		t.rows = append(t.rows, []string{strconv.Itoa(i + 1), b.Title, b.Author, strconv.Itoa(b.Loans), b.BookID})
	}
	writeReport(w, asCSV, library.ReportTopTitles+"-"+rep.Range.From+"-"+rep.Range.To, t, body)
}

type homeroomOverdueBody struct {
	Homeroom string `json:"homeroom"`
	Loans    int    `json:"loans"`
	Students int    `json:"students"`
}

type overdueByHomeroomBody struct {
	SchoolID  string                `json:"school_id"`
	Date      string                `json:"date"`
	Total     int                   `json:"total"`
	Homerooms []homeroomOverdueBody `json:"homerooms"`
}

func (h *handler) reportOverdueByHomeroom(w http.ResponseWriter, r *http.Request) {
	p, asCSV, ok := reportParams(w, r)
	if !ok {
		return
	}
	rep, err := h.deps.Library.Reports.OverdueByHomeroom(r.Context(), p["schoolId"])
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	body := overdueByHomeroomBody{SchoolID: rep.School.ID, Date: rep.Date, Total: rep.Total, Homerooms: []homeroomOverdueBody{}}
	t := reportTable{header: []string{"homeroom", "overdue_loans", "students"}}
	for _, c := range rep.Homerooms {
		body.Homerooms = append(body.Homerooms, homeroomOverdueBody(c))
		t.rows = append(t.rows, []string{c.Homeroom, strconv.Itoa(c.Loans), strconv.Itoa(c.Students)})
	}
	writeReport(w, asCSV, library.ReportOverdueHomerooms+"-"+rep.Date, t, body)
}

type collectionGroupBody struct {
	Value   string `json:"value"`
	Unknown bool   `json:"unknown"`
	Titles  int    `json:"titles"`
	Copies  int    `json:"copies"`
}

type collectionBody struct {
	SchoolID string                `json:"school_id"`
	By       string                `json:"by"`
	Titles   int                   `json:"titles"`
	Copies   int                   `json:"copies"`
	Groups   []collectionGroupBody `json:"groups"`
}

func (h *handler) reportCollection(field, name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p, asCSV, ok := reportParams(w, r)
		if !ok {
			return
		}
		rep, err := h.deps.Library.Reports.Collection(r.Context(), p["schoolId"], field)
		if err != nil {
			httpedge.WriteError(w, r, err)
			return
		}
		body := collectionBody{SchoolID: rep.School.ID, By: field, Titles: rep.Titles, Copies: rep.Copies, Groups: []collectionGroupBody{}}
		t := reportTable{header: []string{field, "titles", "copies"}}
		for _, g := range rep.Rows {
			body.Groups = append(body.Groups, collectionGroupBody{Value: g.Value, Unknown: g.Value == "", Titles: g.Titles, Copies: g.Copies})
			label := g.Value
			if label == "" {
				label = "unknown"
			}
			t.rows = append(t.rows, []string{label, strconv.Itoa(g.Titles), strconv.Itoa(g.Copies)})
		}
		writeReport(w, asCSV, name, t, body)
	}
}

type unusedBookBody struct {
	BookID string `json:"book_id"`
	Title  string `json:"title"`
	Author string `json:"author"`
	ISBN   string `json:"isbn"`
	Copies int    `json:"copies"`
}

type neverBorrowedBody struct {
	SchoolID   string           `json:"school_id"`
	Books      []unusedBookBody `json:"books"`
	Pagination pagination       `json:"pagination"`
}

func (h *handler) reportNeverBorrowed(w http.ResponseWriter, r *http.Request) {
	p, asCSV, ok := reportParams(w, r, "page", "limit")
	if !ok {
		return
	}
	page, limit, err := pageParams(p, library.DefaultReportPage)
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	rep, err := h.deps.Library.Reports.NeverBorrowed(r.Context(), p["schoolId"], usecase.ListQuery{Page: page, Limit: limit}, asCSV)
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	body := neverBorrowedBody{SchoolID: rep.School.ID, Books: []unusedBookBody{}, Pagination: pageOf(rep.Page, rep.Limit, rep.Total)}
	t := reportTable{header: []string{"title", "author", "isbn", "copies", "book_id"}}
	for _, b := range rep.Books {
		body.Books = append(body.Books, unusedBookBody{BookID: b.Book.ID, Title: b.Book.Title, Author: b.Book.Author, ISBN: b.Book.ISBN, Copies: b.Copies})
		t.rows = append(t.rows, []string{b.Book.Title, b.Book.Author, b.Book.ISBN, strconv.Itoa(b.Copies), b.Book.ID})
	}
	writeReport(w, asCSV, library.ReportNeverBorrowed, t, body)
}

type medianAgeBody struct {
	SchoolID          string   `json:"school_id"`
	Date              string   `json:"date"`
	MedianYear        *float64 `json:"median_year"`
	MedianAgeYears    *float64 `json:"median_age_years"`
	CopiesCounted     int      `json:"copies_counted"`
	CopiesWithoutYear int      `json:"copies_without_year"`
}

func (h *handler) reportMedianAge(w http.ResponseWriter, r *http.Request) {
	p, asCSV, ok := reportParams(w, r)
	if !ok {
		return
	}
	rep, err := h.deps.Library.Reports.MedianAge(r.Context(), p["schoolId"])
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	body := medianAgeBody{SchoolID: rep.School.ID, Date: rep.Date, CopiesCounted: rep.Counted, CopiesWithoutYear: rep.Excluded}
	year, age := "", ""
	if rep.Counted > 0 {
		body.MedianYear, body.MedianAgeYears = &rep.MedianYear, &rep.Years
		year, age = strconv.FormatFloat(rep.MedianYear, 'f', -1, 64), strconv.FormatFloat(rep.Years, 'f', -1, 64)
	}
	writeReport(w, asCSV, library.ReportMedianAge+"-"+rep.Date, reportTable{
		header: []string{"date", "median_year", "median_age_years", "copies_counted", "copies_without_year"},
		rows:   [][]string{{rep.Date, year, age, strconv.Itoa(rep.Counted), strconv.Itoa(rep.Excluded)}},
	}, body)
}

type titleQueueBody struct {
	BookID  string `json:"book_id"`
	Title   string `json:"title"`
	Author  string `json:"author"`
	ISBN    string `json:"isbn"`
	Copies  int    `json:"copies"`
	Waiting int    `json:"waiting_holds"`
	// HoldsPerCopy is null for a title with no copy to lend.
	HoldsPerCopy *float64 `json:"holds_per_copy"`
}

type holdQueuesBody struct {
	SchoolID string           `json:"school_id"`
	Titles   []titleQueueBody `json:"titles"`
}

func (h *handler) reportHoldQueues(w http.ResponseWriter, r *http.Request) {
	p, asCSV, ok := reportParams(w, r, "limit")
	if !ok {
		return
	}
	limit, err := intParam(p, "limit", library.DefaultHoldQueues)
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	rep, err := h.deps.Library.Reports.HoldQueues(r.Context(), p["schoolId"], limit)
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	body := holdQueuesBody{SchoolID: rep.School.ID, Titles: []titleQueueBody{}}
	t := reportTable{header: []string{"rank", "title", "author", "isbn", "copies", "waiting_holds", "holds_per_copy", "book_id"}}
	for i, q := range rep.Titles {
		b := titleQueueBody{BookID: q.Book.ID, Title: q.Book.Title, Author: q.Book.Author, ISBN: q.Book.ISBN, Copies: q.Copies, Waiting: q.Waiting}
		perCopy := "no copy to lend"
		if v, ok := q.HoldsPerCopy(); ok {
			b.HoldsPerCopy = &v
			perCopy = strconv.FormatFloat(v, 'f', -1, 64)
		}
		body.Titles = append(body.Titles, b)
		t.rows = append(t.rows, []string{strconv.Itoa(i + 1), q.Book.Title, q.Book.Author, q.Book.ISBN, strconv.Itoa(q.Copies),
			strconv.Itoa(q.Waiting), perCopy, q.Book.ID})
	}
	writeReport(w, asCSV, library.ReportHoldQueues, t, body)
}
