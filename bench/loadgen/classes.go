package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/students"
	"github.com/readinglibrary/service/core/user"
)

// classSize is the class -self measures a teacher's view and its families'
// letters with: a homeroom of that many students, each with one loan out.
const (
	classSize     = 30
	classHomeroom = "5S"
)

// measureClass seeds a class of classSize students with a teacher and a
// loan each (not measured), moves the library's clock a month on so that
// every loan of the school is overdue, and measures the class's pages: the
// teacher's view, and the desk's receipt and take-home letters. It runs
// after the student's requests, which need today's clock.
func (r *runner) measureClass(s *svc, sc *school, sr *sizeRun, st selfStudent) error {
	ctx := context.Background()
	libCtx, lib, err := s.asEmail(ctx, demoLibrarian)
	if err != nil {
		return err
	}
	if len(sc.studentIDs) < classSize || len(sc.free) < classSize+selfHistory {
		return fmt.Errorf("-self's class needs %d students and free copies", classSize)
	}
	const email, password = "bench.teacher@maplegrove.example.org", "chalk-and-board-7"
	if _, _, err := s.App.Library.Staff.Invite(libCtx, email, lib.SchoolID, password, user.RoleTeacher); err != nil {
		return fmt.Errorf("make the teacher: %w", err)
	}
	if _, _, err := s.App.Library.Notices.ReplaceHomerooms(libCtx, "", []library.Homeroom{
		{Name: classHomeroom, TeacherName: "Bench Teacher", TeacherEmail: email}}); err != nil {
		return err
	}
	homeroom := classHomeroom
	// The class's copies are the school's last free ones: -self's student
	// borrowed from the first.
	copies := sc.free[len(sc.free)-classSize:]
	for i, id := range sc.studentIDs[len(sc.studentIDs)-classSize:] {
		if _, err := s.App.Library.Students.Update(libCtx, "", id, students.StudentChanges{Homeroom: &homeroom}); err != nil {
			return fmt.Errorf("move a student to %s: %w", classHomeroom, err)
		}
		if _, err := s.App.Library.Circulation.CreateLoan(libCtx, circulation.LoanInput{BookID: copies[i].BookID, CopyID: copies[i].ID, StudentID: id}); err != nil {
			return fmt.Errorf("lend to the class: %w", err)
		}
	}
	teacher, err := login(s.URL, email, password)
	if err != nil {
		return err
	}
	const month = 30 * 24 * time.Hour
	s.App.Library.SetClock(func() time.Time { return time.Now().Add(month) }, uuid.NewString)
	// The view is measured as the teacher sees it: every loan marked overdue.
	a, err := expect(s.URL, rq{Path: "/api/library/class?homeroom=" + classHomeroom, Token: teacher.Access}, 200)
	if err != nil {
		return err
	}
	var view struct {
		Totals struct{ Students, Overdue int }
	}
	if err := json.Unmarshal(a.Body, &view); err != nil || view.Totals.Students != classSize || view.Totals.Overdue != classSize {
		return fmt.Errorf("the class view before measuring: %+v, %v (want %d students, each with an overdue loan)", view.Totals, err, classSize)
	}
	log.Printf("  -self: a class of %d in %s with a teacher, its loans a month overdue", classSize, classHomeroom)
	classIDs := sc.studentIDs[len(sc.studentIDs)-classSize:]
	if err := seedSchoolReading(ctx, s, sc, r.o.progress); err != nil {
		return err
	}
	if err := seedClassTerm(ctx, s, libCtx, classIDs); err != nil {
		return err
	}
	a, err = expect(s.URL, rq{Path: "/api/library/class/reading?homeroom=" + classHomeroom, Token: teacher.Access}, 200)
	if err != nil {
		return err
	}
	var reading struct {
		Totals struct {
			Students    int `json:"students"`
			FromLibrary int `json:"from_library"`
			FromApp     int `json:"from_app"`
		} `json:"totals"`
	}
	if err := json.Unmarshal(a.Body, &reading); err != nil || reading.Totals.Students != classSize ||
		reading.Totals.FromLibrary != classSize*termFinished || reading.Totals.FromApp < classSize*termAppBooks {
		return fmt.Errorf("the class's reading before measuring: %+v, %v (want %d students, %d books from the library, at least %d from the app)",
			reading.Totals, err, classSize, classSize*termFinished, classSize*termAppBooks)
	}
	log.Printf("  -self: %s's term: %+v", classHomeroom, reading.Totals)
	cookie, err := formSignIn(s.URL, email, password)
	if err != nil {
		return err
	}
	if err := seedPicks(ctx, libCtx, s, st); err != nil {
		return err
	}
	picks, err := picksCase(s, st)
	if err != nil {
		return err
	}
	return r.runSelfCases(s, sr, []selfCase{
		picks,
		{label: fmt.Sprintf("a class's reading over the term, %d students, %d books marked read and %d finished in the app `GET /api/library/class/reading`",
			classSize, reading.Totals.FromLibrary, reading.Totals.FromApp), limit: 25 * time.Millisecond,
			first: rq{Path: "/api/library/class/reading?homeroom=" + classHomeroom, Token: teacher.Access}},
		{label: "the same as CSV (`?format=csv`)",
			first: rq{Path: "/api/library/class/reading?format=csv&homeroom=" + classHomeroom, Token: teacher.Access}},
		{label: "the teacher's reading page with its chart `GET /library/{domain}/class/reading`",
			first: rq{Path: "/library/" + demoSchoolDomain + "/class/reading?homeroom=" + classHomeroom, Cookie: cookie}},
		{label: "a class student's statistics, both sources `GET /v1/users/{id}/stats` as the librarian", limit: 10 * time.Millisecond,
			first: rq{Path: "/v1/users/usr_" + classIDs[0] + "/stats", Token: sc.lib}},
		{label: fmt.Sprintf("a teacher's class view, %d students with a loan each, all overdue `GET /api/library/class`", classSize),
			first: rq{Path: "/api/library/class?homeroom=" + classHomeroom, Token: teacher.Access}},
		{label: fmt.Sprintf("take-home overdue letters of the class, %d pages `GET /api/library/loans/overdue-letters` (PDF)", classSize),
			first: rq{Path: "/api/library/loans/overdue-letters?homeroom=" + classHomeroom, Token: sc.lib}},
		{label: fmt.Sprintf("a loan receipt, %d loans out, A4 `GET /api/library/students/{id}/receipt` (PDF)", len(st.renewable)),
			first: rq{Path: "/api/library/students/" + st.id + "/receipt", Token: sc.lib}},
		{label: "the same receipt on an 80 mm roll (`?paper=80mm`)",
			first: rq{Path: "/api/library/students/" + st.id + "/receipt?paper=80mm", Token: sc.lib}},
	})
}
