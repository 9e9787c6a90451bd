package main

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/catalog"
)

// A term of reading for -self: reading-app sessions across the school
// (-progress of them, as the school has), and for the measured
// class each student's past loans marked read and a term of app reading.

// termFinished is how many past loans of each class student are marked
// read; termAppBooks how many app books each reads in the term, each in
// termSessions sessions, the last finishing it.
const (
	termFinished = 10
	termAppBooks = 8
	termSessions = 4
)

// seedSchoolReading stores n reading sessions (with their progress
// records) straight through the store, spread over the school's students
// and its reading books and over the last 120 days: the app reading of a
// whole school, which the class's reads must not grow with.
func seedSchoolReading(ctx context.Context, s *svc, sc *school, n int) error {
	if n <= 0 {
		return nil
	}
	books, _, err := s.App.Repos.Books.List(ctx, catalog.Query{Page: 1, Limit: catalog.MaxLimit, Sort: catalog.SortTitle})
	if err != nil || len(books) == 0 {
		return fmt.Errorf("reading books for the sessions: %v (%d)", err, len(books))
	}
	start := time.Now()
	now := time.Now().UTC()
	for i := range n {
		account := sc.studentIDs[i%len(sc.studentIDs)]
		book := books[(i/len(sc.studentIDs))%len(books)]
		at := now.Add(-time.Duration(i%120) * 24 * time.Hour)
		if err := recordSession(ctx, s, account, book, at, 300, i%10 == 9); err != nil {
			return err
		}
		if (i+1)%20000 == 0 {
			log.Printf("  -self: %d of %d reading sessions stored (%s)", i+1, n, time.Since(start).Round(time.Second))
		}
	}
	log.Printf("  -self: %d reading sessions across the school in %s", n, time.Since(start).Round(time.Second))
	return nil
}

// recordSession stores one session and the progress it leaves.
func recordSession(ctx context.Context, s *svc, account string, book catalog.Book, at time.Time, seconds int, completes bool) error {
	page := max(book.Pages/2, 1)
	p := catalog.Progress{AccountID: account, BookID: book.ID, PageNumber: page, Percentage: 50, MaxPage: page, MaxPercentage: 50, LastRead: at}
	if completes {
		p.PageNumber, p.MaxPage, p.Percentage, p.MaxPercentage, p.CompletedAt = book.Pages, book.Pages, 100, 100, at
	}
	if err := s.App.Repos.Progress.Save(ctx, p); err != nil {
		return err
	}
	return s.App.Repos.Progress.RecordSession(ctx, catalog.ReadingSession{ID: uuid.NewString(), AccountID: account, BookID: book.ID, At: at,
		LocalDay: at.Format(time.DateOnly), Seconds: seconds, ToPage: p.PageNumber, Completed: completes})
}

// seedClassTerm gives each student of the class termFinished of their past
// loans marked read at the desk, and termAppBooks app books read to the
// end in termSessions sessions each over the last 60 days.
func seedClassTerm(ctx context.Context, s *svc, libCtx context.Context, class []string) error {
	books, _, err := s.App.Repos.Books.List(ctx, catalog.Query{Page: 1, Limit: catalog.MaxLimit, Sort: catalog.SortTitle})
	if err != nil || len(books) < termAppBooks {
		return fmt.Errorf("reading books for the class: %v (%d)", err, len(books))
	}
	now := time.Now().UTC()
	for k, id := range class {
		past, _, err := s.App.Repos.Loans.HistoryOfStudent(ctx, id, 0, termFinished)
		if err != nil {
			return err
		}
		if len(past) < termFinished {
			return fmt.Errorf("a class student has %d past loans, -self marks %d", len(past), termFinished)
		}
		for _, l := range past {
			if _, err := s.App.Library.Circulation.MarkFinishedAtDesk(libCtx, "", l.ID); err != nil {
				return fmt.Errorf("mark a past loan read: %w", err)
			}
		}
		for b := range termAppBooks {
			book := books[(k+b)%len(books)]
			for j := range termSessions {
				at := now.Add(-time.Duration(60-b*7-j) * 24 * time.Hour)
				if err := recordSession(ctx, s, id, book, at, 600, j == termSessions-1); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
