package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/readinglibrary/service/core/catalog"
)

// measureAppLinks puts the titles of the catalogue's page 3 in the reading
// app (every other one by ISBN where the library has one, the rest by
// title and author, MARC-style "Surname, Forename"), then measures the same
// catalogue page again, now naming each title's app book, and an app book
// as the student reads it with the school's copies of the same work.
func (r *runner) measureAppLinks(s *svc, sc *school, sr *sizeRun, st selfStudent) error {
	ctx := context.Background()
	page := "/api/library/catalog/" + demoSchoolDomain + "?page=3&limit=50"
	a, err := expect(s.URL, rq{Path: page}, 200)
	if err != nil {
		return err
	}
	var cat struct {
		Books []struct {
			ID, ISBN, Title, Author string
		} `json:"books"`
	}
	if err := json.Unmarshal(a.Body, &cat); err != nil || len(cat.Books) == 0 {
		return fmt.Errorf("catalogue page 3: %v (%d titles)", err, len(cat.Books))
	}
	if err := r.runSelfCases(s, sr, []selfCase{{label: "catalogue page 3 `GET /api/library/catalog/{domain}?page=3&limit=50`, none of its titles in the reading app",
		limit: selfPageTarget, first: rq{Path: page}}}); err != nil {
		return err
	}
	var drafts []catalog.BookDraft
	for i, b := range cat.Books {
		d := catalog.BookDraft{Title: b.Title, Author: surnameFirst(b.Author), Genre: "fantasy", ReadingLevel: "beginner", Pages: 3,
			Chapters: []catalog.ChapterDraft{{Title: "Only", PageStart: 1, PageEnd: 3, Text: "Once upon a time."}}}
		if i%2 == 0 && b.ISBN != "" {
			d.ISBN, d.Author = b.ISBN, "Another Name" // found by its ISBN alone
		}
		drafts = append(drafts, d)
	}
	made, err := s.App.Books.CreateBooks(ctx, drafts)
	if err != nil {
		return fmt.Errorf("put page 3 in the app: %w", err)
	}
	a, err = expect(s.URL, rq{Path: page}, 200)
	if err != nil {
		return err
	}
	var linked struct {
		Books []struct {
			InApp *struct{ BookID string } `json:"in_app"`
		} `json:"books"`
	}
	if err := json.Unmarshal(a.Body, &linked); err != nil {
		return err
	}
	n := 0
	for _, b := range linked.Books {
		if b.InApp != nil {
			n++
		}
	}
	if n != len(cat.Books) {
		return fmt.Errorf("catalogue page 3 names %d of its %d titles in the app, want all", n, len(cat.Books))
	}
	appBook := "/v1/books/" + made[len(made)-1].ID
	if a, err = expect(s.URL, rq{Path: appBook, Token: st.token}, 200); err != nil {
		return err
	}
	var shelf struct {
		AtYourSchool []struct{ BookID string } `json:"at_your_school"`
	}
	if err := json.Unmarshal(a.Body, &shelf); err != nil || len(shelf.AtYourSchool) != 1 {
		return fmt.Errorf("the app book's shelf: %v %s", err, a.Body)
	}
	log.Printf("  app links: %d of page 3's titles in the app", n)
	return r.runSelfCases(s, sr, []selfCase{
		{label: "catalogue page 3 `GET /api/library/catalog/{domain}?page=3&limit=50`, its 50 titles in the reading app", limit: selfPageTarget,
			first: rq{Path: page}},
		{label: "an app book with the school's copies `GET /v1/books/{id}` as the student", limit: selfPageTarget,
			first: rq{Path: appBook, Token: st.token}},
		{label: "a title's reading-app link at the desk `GET /api/library/books/{id}/app-link`",
			first: rq{Path: "/api/library/books/" + cat.Books[0].ID + "/app-link", Token: sc.lib}},
	})
}

// surnameFirst writes "Forename Surname" as a MARC heading does.
func surnameFirst(name string) string {
	for i := len(name) - 1; i > 0; i-- {
		if name[i] == ' ' {
			return name[i+1:] + ", " + name[:i]
		}
	}
	return name
}
