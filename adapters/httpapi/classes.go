package httpapi

import (
	"net/http"

	"github.com/readinglibrary/service/core/service/circulation"
)

type classSummaryBody struct {
	Homeroom    string `json:"homeroom"`
	TeacherName string `json:"teacher_name"`
	Mine        bool   `json:"mine"`
}

type classesBody struct {
	SchoolID string             `json:"school_id"`
	Classes  []classSummaryBody `json:"classes"`
}

// listClasses answers the classes the caller may open: a teacher's own,
// every class of the school for the library's staff.
func (h *handler) listClasses(w http.ResponseWriter, r *http.Request) {
	schoolID, ok := schoolOf(w, r)
	if !ok {
		return
	}
	school, classes, err := h.deps.Library.Classes.List(r.Context(), schoolID)
	body := classesBody{SchoolID: school.ID, Classes: mapSlice(classes, func(c circulation.ClassSummary) classSummaryBody {
		return classSummaryBody{Homeroom: c.Homeroom.Name, TeacherName: c.Homeroom.TeacherName, Mine: c.Mine}
	})}
	respond(w, r, http.StatusOK, body, err)
}

// classStudentBody is a student as a class view shows them: no email, no
// guardians.
type classStudentBody struct {
	StudentID     string     `json:"student_id"`
	Name          string     `json:"name"`
	StudentNumber string     `json:"student_number"`
	Grade         string     `json:"grade"`
	Loans         []loanBody `json:"loans"`
	HoldsReady    []holdBody `json:"holds_ready"`
}

type classTotalsBody struct {
	Students   int `json:"students"`
	LoansOut   int `json:"loans_out"`
	Overdue    int `json:"overdue"`
	HoldsReady int `json:"holds_ready"`
}

type classBody struct {
	SchoolID    string             `json:"school_id"`
	Homeroom    string             `json:"homeroom"`
	TeacherName string             `json:"teacher_name"`
	Date        string             `json:"date"`
	Students    []classStudentBody `json:"students"`
	Totals      classTotalsBody    `json:"totals"`
	// Truncated says the class has more students than the view shows.
	Truncated bool `json:"truncated"`
}

// getClass answers one class: its students with their loans out and the
// holds ready for them.
func (h *handler) getClass(w http.ResponseWriter, r *http.Request) {
	p, ok := params(w, r, "schoolId", "homeroom")
	if !ok {
		return
	}
	v, err := h.deps.Library.Classes.View(r.Context(), p["schoolId"], p["homeroom"])
	body := classBody{SchoolID: v.School.ID, Homeroom: v.Homeroom.Name, TeacherName: v.Homeroom.TeacherName, Date: v.Date,
		Totals:    classTotalsBody{Students: v.Total, LoansOut: v.LoansOut, Overdue: v.Overdue, HoldsReady: v.HoldsReady},
		Truncated: v.Total > len(v.Students),
		Students: mapSlice(v.Students, func(s circulation.ClassStudent) classStudentBody {
			return classStudentBody{StudentID: s.Student.ID, Name: s.Student.Name, StudentNumber: s.Student.StudentNumber, Grade: s.Student.Grade,
				Loans: mapSlice(s.Loans, toLoanBody), HoldsReady: mapSlice(s.ReadyHolds, toHoldBody)}
		})}
	respond(w, r, http.StatusOK, body, err)
}
