package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/service/students"
)

// picksGrade is the grade -self gives its student for the recommendations:
// the seed's levels run 1.0 to 12.9, so a grade 5 range (3.0 to 7.9) keeps
// about a third of them.
const picksGrade = "5"

// seedPicks readies -self's student for the recommendations: a grade, their
// past loans marked read at the desk (the genres they finished) and
// termAppBooks app books finished in the app.
func seedPicks(ctx, libCtx context.Context, s *svc, st selfStudent) error {
	grade := picksGrade
	if _, err := s.App.Library.Students.Update(libCtx, "", st.id, students.StudentChanges{Grade: &grade}); err != nil {
		return err
	}
	past, _, err := s.App.Repos.Loans.HistoryOfStudent(ctx, st.id, 0, termFinished)
	if err != nil {
		return err
	}
	for _, l := range past {
		if _, err := s.App.Library.Circulation.MarkFinishedAtDesk(libCtx, "", l.ID); err != nil {
			return fmt.Errorf("mark a past loan read: %w", err)
		}
	}
	books, _, err := s.App.Repos.Books.List(ctx, catalog.Query{Page: 1, Limit: catalog.MaxLimit, Sort: catalog.SortTitle})
	if err != nil || len(books) < termAppBooks {
		return fmt.Errorf("reading books for the student: %v (%d)", err, len(books))
	}
	now := time.Now().UTC()
	for b := range termAppBooks {
		if err := recordSession(ctx, s, st.id, books[b*7%len(books)], now.Add(-time.Duration(b+1)*24*time.Hour), 600, true); err != nil {
			return err
		}
	}
	return nil
}

// picksCase is the recommendations' measure, checked once first: some
// picks from the shelf, each with a reason.
func picksCase(s *svc, st selfStudent) (selfCase, error) {
	first := rq{Path: "/api/library/student/recommendations?limit=10", Token: st.token}
	a, err := expect(s.URL, first, 200)
	if err != nil {
		return selfCase{}, err
	}
	var got struct {
		Recommendations []struct {
			Reason  string          `json:"reason"`
			Library json.RawMessage `json:"library_book"`
		} `json:"recommendations"`
	}
	shelf := 0
	if err := json.Unmarshal(a.Body, &got); err != nil {
		return selfCase{}, err
	}
	for _, p := range got.Recommendations {
		if string(p.Library) != "null" && p.Reason != "" {
			shelf++
		}
	}
	// In a small school the student has borrowed most titles, and the
	// app's picks fill the list as far as they go.
	if len(got.Recommendations) == 0 || len(got.Recommendations) > 10 {
		return selfCase{}, fmt.Errorf("the student's picks before measuring: %d, want 1 to 10: %.400s", len(got.Recommendations), a.Body)
	}
	return selfCase{label: fmt.Sprintf("a grade %s student's %d picks (%d from the shelf), %d loans marked read and %d app books finished `GET /api/library/student/recommendations`",
		picksGrade, len(got.Recommendations), shelf, termFinished, termAppBooks), limit: 25 * time.Millisecond, first: first}, nil
}
