package httpapi

import (
	"net/http"

	"github.com/readinglibrary/service/core/service/students"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/user"
)

type studentBody struct {
	StudentID     string         `json:"student_id"`
	Name          string         `json:"name"`
	Email         string         `json:"email"`
	StudentNumber string         `json:"student_number"`
	Grade         string         `json:"grade"`
	Homeroom      string         `json:"homeroom"`
	ExternalID    string         `json:"external_id"`
	Inactive      bool           `json:"inactive"`
	Guardians     []guardianBody `json:"guardians"`
	SchoolID      string         `json:"school_id"`
	CreatedAt     string         `json:"created_at"`
}

// guardianBody is one of a student's parents or guardians, in the staff's
// view of the student; no route a student calls carries it.
type guardianBody struct {
	Name         string `json:"name"`
	Email        string `json:"email"`
	Relationship string `json:"relationship"`
}

func toStudentBody(a user.Account) studentBody {
	return studentBody{StudentID: a.ID, Name: a.Name, Email: a.Email, StudentNumber: a.StudentNumber, Grade: a.Grade,
		Homeroom: a.Homeroom, ExternalID: a.ExternalID, Inactive: a.Inactive, SchoolID: a.SchoolID, CreatedAt: timestamp(a.CreatedAt),
		Guardians: mapSlice(a.Guardians, func(g user.Guardian) guardianBody { return guardianBody(g) })}
}

// guardianInput is a guardian in a request: a relationship left out is
// not said; given, it is one of OneRoster's three roles.
type guardianInput struct {
	Name         string  `json:"name"`
	Email        string  `json:"email"`
	Relationship *string `json:"relationship" validate:"omitnil,oneof=parent guardian relative"`
}

// toGuardians is a request's guardians as the use cases take them.
func toGuardians(in []guardianInput) []user.Guardian {
	var out []user.Guardian
	for _, g := range in {
		out = append(out, user.Guardian{Name: g.Name, Email: g.Email, Relationship: deref(g.Relationship)})
	}
	return out
}

// guardianChanges is toGuardians for a change: left out (nil) stays nil,
// and [] is an empty change, which removes them.
func guardianChanges(in *[]guardianInput) *[]user.Guardian {
	if in == nil {
		return nil
	}
	out := toGuardians(*in)
	return &out
}

type studentRequest struct {
	SchoolID      string  `json:"school_id"`
	Name          string  `json:"name" validate:"required"`
	Email         string  `json:"email"`
	Password      *string `json:"password" validate:"omitnil,min=1"` // left out: a student without a sign-in
	StudentNumber string  `json:"student_number"`
	Grade         string  `json:"grade"`
	Homeroom      string  `json:"homeroom"`
	// Guardians are the student's parents and guardians (at most four).
	Guardians []guardianInput `json:"guardians" validate:"dive"`
}

func (h *handler) createStudent(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeBody[studentRequest](w, r)
	if !ok {
		return
	}
	a, err := h.deps.Library.Students.Create(r.Context(), req.SchoolID, students.StudentInput{
		Name: req.Name, Email: req.Email, Password: deref(req.Password), StudentNumber: req.StudentNumber,
		Grade: req.Grade, Homeroom: req.Homeroom, Guardians: toGuardians(req.Guardians),
	})
	respond(w, r, http.StatusCreated, studentReply{Student: toStudentBody(a)}, err)
}

func (h *handler) listStudents(w http.ResponseWriter, r *http.Request) {
	pagedList(w, r, []string{"search", "homeroom"}, func(p map[string]string, q usecase.ListQuery) (any, error) {
		res, err := h.deps.Library.Students.Search(r.Context(), p["schoolId"], p["homeroom"], q)
		return studentsPageReply{Students: mapSlice(res.Students, toStudentBody), Pagination: pageOf(res.Page, res.Limit, res.Total)}, err
	})
}

// studentChangeRequest changes a student: a field left out stays as it
// is; an empty grade or homeroom removes it.
type studentChangeRequest struct {
	SchoolID string  `json:"school_id"`
	Name     *string `json:"name"`
	Grade    *string `json:"grade"`
	Homeroom *string `json:"homeroom"`
	// Guardians, when given, replace the student's; [] removes them.
	Guardians *[]guardianInput `json:"guardians" validate:"omitnil,dive"`
}

func (h *handler) updateStudent(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeBody[studentChangeRequest](w, r)
	if !ok {
		return
	}
	a, err := h.deps.Library.Students.Update(r.Context(), req.SchoolID, pathID(r),
		students.StudentChanges{Name: req.Name, Grade: req.Grade, Homeroom: req.Homeroom, Guardians: guardianChanges(req.Guardians)})
	respond(w, r, http.StatusOK, studentReply{Student: toStudentBody(a)}, err)
}

// importStudents takes a text/csv body (name, email, student_number,
// grade, homeroom).
func (h *handler) importStudents(w http.ResponseWriter, r *http.Request) {
	school, file, ok := h.schoolAndFile(w, r)
	if !ok {
		return
	}
	defer file.Release()
	students, err := h.deps.Library.Students.Import(r.Context(), school, file)
	respond(w, r, http.StatusCreated, studentsImportedReply{Imported: len(students), Students: mapSlice(students, toStudentBody)}, err)
}
