package httpapi

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/core/library"
)

// A class's reading over a term, as JSON or, with ?format=csv, one row per
// student.

type classReadingBody struct {
	SchoolID    string                 `json:"school_id"`
	Homeroom    string                 `json:"homeroom"`
	TeacherName string                 `json:"teacher_name"`
	From        string                 `json:"from"`
	To          string                 `json:"to"`
	IdleWeeks   int                    `json:"idle_weeks"`
	Totals      classReadingTotalsBody `json:"totals"`
	Levels      levelSpreadBody        `json:"levels"`
	Popular     []popularTitleBody     `json:"popular"`
	Students    []studentReadingBody   `json:"students"`
	Truncated   bool                   `json:"truncated"`
}

type classReadingTotalsBody struct {
	Students      int `json:"students"`
	BooksFinished int `json:"books_finished"`
	FromLibrary   int `json:"from_library"`
	FromApp       int `json:"from_app"`
	AppMinutes    int `json:"app_minutes"`
	Idle          int `json:"idle"`
}

type levelSpreadBody struct {
	Below   int `json:"below"`
	In      int `json:"in"`
	Above   int `json:"above"`
	Unknown int `json:"unknown"`
}

type popularTitleBody struct {
	Title   string `json:"title"`
	Author  string `json:"author"`
	Readers int    `json:"readers"`
}

type studentReadingBody struct {
	StudentID     string          `json:"student_id"`
	Name          string          `json:"name"`
	StudentNumber string          `json:"student_number"`
	Grade         string          `json:"grade"`
	BooksFinished int             `json:"books_finished"`
	AppMinutes    int             `json:"app_minutes"`
	LastRead      *string         `json:"last_read"`
	Idle          bool            `json:"idle"`
	Books         []readEntryBody `json:"books"`
}

type readEntryBody struct {
	BookID     string `json:"book_id"`
	Title      string `json:"title"`
	Author     string `json:"author"`
	Source     string `json:"source"`
	FinishedOn string `json:"finished_on"`
	Level      string `json:"level"`
}

// getClassReading answers a class's reading over a term.
func (h *handler) getClassReading(w http.ResponseWriter, r *http.Request) {
	p, asCSV, ok := reportParams(w, r, "homeroom", "from", "to", "idle_weeks")
	if !ok {
		return
	}
	weeks, err := intParam(p, "idle_weeks", 0)
	if err == nil && p["idle_weeks"] != "" && weeks < 1 {
		err = errs.InvalidField("idle_weeks", fmt.Sprintf("must be between 1 and %d", library.MaxIdleWeeks)) // 0 would read as the default
	}
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	v, err := h.deps.Library.Classes.Reading(r.Context(), p["schoolId"], p["homeroom"], p["from"], p["to"], weeks)
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	loc := v.School.Settings.Location()
	day := func(e library.ReadEntry) string { return e.Finished.In(loc).Format("2006-01-02") }
	body := classReadingBody{SchoolID: v.School.ID, Homeroom: v.Homeroom.Name, TeacherName: v.Homeroom.TeacherName,
		From: v.Period.From, To: v.Period.To, IdleWeeks: v.Period.IdleWeeks, Truncated: v.Total > len(v.Students),
		Totals: classReadingTotalsBody{Students: v.Total, BooksFinished: v.BooksFinished, FromLibrary: v.FromLibrary, FromApp: v.FromApp,
			AppMinutes: v.AppMinutes, Idle: v.Idle},
		Levels: levelSpreadBody{Below: v.Levels.Below, In: v.Levels.In, Above: v.Levels.Above, Unknown: v.Levels.Unknown},
		Popular: mapSlice(v.Popular, func(t library.PopularTitle) popularTitleBody {
			return popularTitleBody{Title: t.Title, Author: t.Author, Readers: t.Readers}
		}),
		Students: mapSlice(v.Students, func(s library.StudentReading) studentReadingBody {
			b := studentReadingBody{StudentID: s.ID, Name: s.Name, StudentNumber: s.Number, Grade: s.Grade, BooksFinished: len(s.Books),
				AppMinutes: s.AppMinutes, Idle: s.Idle,
				Books: mapSlice(s.Books, func(e library.ReadEntry) readEntryBody {
					return readEntryBody{BookID: e.BookID, Title: e.Title, Author: e.Author, Source: e.Source, FinishedOn: day(e), Level: e.Level}
				})}
			if !s.LastRead.IsZero() {
				b.LastRead = optional(s.LastRead.In(loc).Format("2006-01-02"))
			}
			return b
		})}
	writeReport(w, asCSV, "class-"+v.Homeroom.Name+"-reading-"+v.Period.From+"-"+v.Period.To, classReadingTable(httpedge.MessageLang(r), body), body)
}

// classReadingTable is a class's reading as one CSV row per student. It
// is for a teacher to read in a spreadsheet, so its headings and yes/no
// are in the language the request asks for (Accept-Language).
func classReadingTable(lang i18n.Lang, b classReadingBody) reportTable {
	t := reportTable{header: []string{lang.T("Student"), lang.T("Student number"), lang.T("Grade"), lang.T("Books finished"),
		lang.T("From the library"), lang.T("From the app"), lang.T("Minutes in the app"), lang.T("Last read"),
		lang.T("Nothing read in %d weeks", b.IdleWeeks)}}
	for _, s := range b.Students {
		lib, app := 0, 0
		for _, e := range s.Books {
			if e.Source == library.ReadFromLibrary {
				lib++
			} else {
				app++
			}
		}
		last := ""
		if s.LastRead != nil {
			last = *s.LastRead
		}
		idle := lang.T("no")
		if s.Idle {
			idle = lang.T("yes")
		}
		t.rows = append(t.rows, []string{s.Name, s.StudentNumber, s.Grade, strconv.Itoa(s.BooksFinished), strconv.Itoa(lib), strconv.Itoa(app),
			strconv.Itoa(s.AppMinutes), last, idle})
	}
	return t
}
