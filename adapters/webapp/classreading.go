package webapp

import (
	"bytes"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/user"
)

// A class's reading over a term, for its teacher and the library's staff:
// the same use case as GET /api/library/class/reading, with its totals, a
// chart of the books each student finished, how those books stand against
// each reader, the class's most read titles, and each student's books.

type classReadingView struct {
	base
	Base, Homeroom, Teacher string
	From, To                string
	IdleWeeks               int
	// PeriodError says why the dates asked for could not be used; the page
	// then shows the term around today.
	PeriodError string
	Total       int
	Reading     library.ClassReading
	Students    []readingStudentRow
	Chart       barChart
	CSVURL      string
	ChartURL    string
}

// Shown is how many students the page lists.
func (v classReadingView) Shown() int { return len(v.Students) }

// readingStudentRow is a student of the page, dates at the school.
type readingStudentRow struct {
	ID, Name, Number, Grade string
	Books                   []readingBookRow
	AppMinutes              int
	LastRead                string // YYYY-MM-DD; "" for nothing this term
	Idle                    bool
}

type readingBookRow struct {
	Title, Author, Source, Level string
	Finished                     string // YYYY-MM-DD
}

func toReadingRows(v circulation.ClassReadingView) []readingStudentRow {
	loc := v.School.Settings.Location()
	out := make([]readingStudentRow, 0, len(v.Students))
	for _, s := range v.Students {
		row := readingStudentRow{ID: s.ID, Name: s.Name, Number: s.Number, Grade: s.Grade, AppMinutes: s.AppMinutes, Idle: s.Idle}
		if !s.LastRead.IsZero() {
			row.LastRead = s.LastRead.In(loc).Format("2006-01-02")
		}
		for _, b := range s.Books {
			row.Books = append(row.Books, readingBookRow{Title: b.Title, Author: b.Author, Source: b.Source, Level: b.Level,
				Finished: b.Finished.In(loc).Format("2006-01-02")})
		}
		out = append(out, row)
	}
	return out
}

// classReadingPage shows a class's reading over a term.
func (a *App) classReadingPage(w http.ResponseWriter, r *http.Request, school library.School) {
	view, periodError, status, ok := a.classReading(w, r, school)
	if !ok {
		return
	}
	root := schoolPath(school)
	q := classReadingQuery(view)
	v := classReadingView{base: a.schoolBase(r, school, tr(r, "Reading in %s", view.Homeroom.Name), "classes"), Base: root,
		Homeroom: view.Homeroom.Name, Teacher: view.Homeroom.TeacherName, From: view.Period.From, To: view.Period.To,
		IdleWeeks: view.Period.IdleWeeks, PeriodError: periodError, Total: view.Total, Reading: view.ClassReading, Students: toReadingRows(view),
		Chart: readingChart(r, view), ChartURL: root + "/class/reading/chart?" + q.Encode()}
	csv := url.Values{"homeroom": {view.Homeroom.Name}, "from": {view.Period.From}, "to": {view.Period.To},
		"idle_weeks": {strconv.Itoa(view.Period.IdleWeeks)}, "format": {"csv"}}
	if user.PrincipalFrom(r.Context()).Role == user.RoleAdmin {
		csv.Set("schoolId", school.ID)
	}
	v.CSVURL = "/api/library/class/reading?" + csv.Encode()
	a.render(w, r, status, "class_reading", v)
}

// classReadingChart is the page's chart alone, as an SVG file.
func (a *App) classReadingChart(w http.ResponseWriter, r *http.Request, school library.School) {
	view, _, _, ok := a.classReading(w, r, school)
	if !ok {
		return
	}
	a.renderSVG(w, r, "class_reading", readingChart(r, view))
}

// classReading reads the class and term the page asks for. Dates it
// cannot use give the term around today, with the reason and a 422.
func (a *App) classReading(w http.ResponseWriter, r *http.Request, school library.School) (circulation.ClassReadingView, string, int, bool) {
	q := r.URL.Query()
	homeroom := q.Get("homeroom")
	weeks := 0
	if s := strings.TrimSpace(q.Get("idle_weeks")); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			n = -1 // refused below as out of range
		}
		weeks = n
	}
	view, err := a.deps.Library.Classes.Reading(r.Context(), school.ID, homeroom, q.Get("from"), q.Get("to"), weeks)
	periodError, status := "", http.StatusOK
	if f := fieldErrors(r, err); errs.Is(err, errs.Invalid) && f["homeroom"] == "" {
		periodError = tr(r, "The dates must be YYYY-MM-DD, to not before from and at most 400 days after it, and the weeks 1 to 52; showing the term so far.")
		status, _ = httpedge.StatusOf(errs.Invalid)
		view, err = a.deps.Library.Classes.Reading(r.Context(), school.ID, homeroom, "", "", 0)
	}
	if errs.Is(err, errs.Invalid) {
		s, _ := httpedge.StatusOf(errs.Invalid)
		a.renderClasses(w, r, school, s, classProblem(r, a.messageOf(r, err), homeroom, fieldErrors(r, err)["homeroom"]))
		return view, "", 0, false
	}
	if err != nil {
		a.fail(w, r, err)
		return view, "", 0, false
	}
	return view, periodError, status, true
}

// classReadingQuery is the page's own query, for its links.
func classReadingQuery(v circulation.ClassReadingView) url.Values {
	return url.Values{"homeroom": {v.Homeroom.Name}, "from": {v.Period.From}, "to": {v.Period.To}, "idle_weeks": {strconv.Itoa(v.Period.IdleWeeks)}}
}

// readingChart charts the books each student finished in the term, in the
// page's language.
func readingChart(r *http.Request, v circulation.ClassReadingView) barChart {
	labels := make([]string, 0, len(v.Students))
	values := make([]int, 0, len(v.Students))
	for _, s := range v.Students {
		labels, values = append(labels, s.Name), append(values, len(s.Books))
	}
	lang := i18n.From(r.Context())
	return newBarChartIn(lang, "chart-class-reading", tr(r, "Books finished in %s from %s to %s, per student", v.Homeroom.Name, lang.ShortDateText(v.Period.From), lang.ShortDateText(v.Period.To)),
		tr(r, "Student"), tr(r, "Books finished"), labels, values)
}

// renderSVG answers chart, drawn by page's "chart" template, as an SVG
// file to save or print.
func (a *App) renderSVG(w http.ResponseWriter, r *http.Request, page string, chart barChart) {
	var buf bytes.Buffer
	buf.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	if len(chart.Bars) == 0 {
		fmt.Fprintf(&buf, `<svg xmlns="http://www.w3.org/2000/svg" width="300" height="24" role="img"><title>%s</title><text x="0" y="16">%s</text></svg>`,
			template.HTMLEscapeString(chart.Title), template.HTMLEscapeString(tr(r, "Nothing to chart.")))
	} else if err := a.pages[i18n.From(r.Context())][page].ExecuteTemplate(&buf, "chart", chart); err != nil {
		renderFailed(w, r, page, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "image/svg+xml")
	h.Set("Content-Disposition", `attachment; filename="`+chart.ID+`.svg"`)
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
}
