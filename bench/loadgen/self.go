package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"log"
	"net/http"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/students"
)

// The student self-service targets, p50 at one client on the default
// store: a catalogue page, placing a hold, renewing, and a history page of
// a student with selfHistory past loans.
const (
	selfPageTarget  = 10 * time.Millisecond
	selfWriteTarget = 5 * time.Millisecond
	selfHistory     = 200
)

// selfStudent is the student -self measures as: signed in over the API and
// the sign-in form, with past loans, loans to renew, and titles to hold.
type selfStudent struct {
	id            string
	token, cookie string
	renewable     []string // loans out, each renewed at most selfRenewals times
	holdable      []string // titles whose one copy another student has
}

// selfRenewals is how many renewals each loan of the renew phase takes: the
// school's setting, which the seed raises to 20 for the desk's phases.
const selfRenewals = 20

// seedSelf makes the measured student of sc through the use cases (not
// measured): selfHistory loans lent and returned, enough loans out for the
// renew phase, and enough titles lent to another student for the hold
// phase. It uses the school's free copies for the loans.
func (r *runner) seedSelf(ctx context.Context, s *svc, sc *school) (selfStudent, error) {
	libCtx, _, err := s.asEmail(ctx, demoLibrarian)
	if err != nil {
		return selfStudent{}, err
	}
	const email, password = "self.student@maplegrove.example.org", "quiet-meadow-path-7"
	acct, err := s.App.Library.Students.Create(libCtx, "", students.StudentInput{Name: "Self Service", Email: email, Password: password})
	if err != nil {
		if e, ok := errs.As(err); ok {
			return selfStudent{}, fmt.Errorf("make the student: %w %v", err, e.Details)
		}
		return selfStudent{}, err
	}
	renewLoans := r.o.requests/selfRenewals + 2
	need := selfHistory + renewLoans
	if len(sc.free) < need {
		return selfStudent{}, fmt.Errorf("-self needs %d free copies, the school has %d", need, len(sc.free))
	}
	st := selfStudent{id: acct.ID}
	start := time.Now()
	for i, cp := range sc.free[:need] {
		v, err := s.App.Library.Circulation.CreateLoan(libCtx, circulation.LoanInput{BookID: cp.BookID, CopyID: cp.ID, StudentID: acct.ID})
		if err != nil {
			return selfStudent{}, fmt.Errorf("lend %s: %w", cp.Code, err)
		}
		if i < selfHistory {
			if _, err := s.App.Library.Circulation.ReturnLoan(libCtx, v.Loan.ID); err != nil {
				return selfStudent{}, err
			}
			continue
		}
		st.renewable = append(st.renewable, v.Loan.ID)
	}
	// The hold phase needs a title per request with no copy on the shelf.
	other := sc.studentIDs[0]
	for i := range r.o.requests + r.o.warmup + 5 {
		b, copies, err := s.App.Library.Holdings.AddBook(libCtx, "", library.BookDraft{Title: fmt.Sprintf("Held Probe %d", i), Author: "Probe", Copies: 1})
		if err != nil {
			return selfStudent{}, err
		}
		if _, err := s.App.Library.Circulation.CreateLoan(libCtx, circulation.LoanInput{BookID: b.ID, CopyID: copies[0].ID, StudentID: other}); err != nil {
			return selfStudent{}, fmt.Errorf("lend a title to hold: %w", err)
		}
		st.holdable = append(st.holdable, b.ID)
	}
	log.Printf("  -self: %d past loans, %d loans out and %d held-out titles made in %s", selfHistory, len(st.renewable), len(st.holdable), time.Since(start).Round(time.Millisecond))
	sess, err := login(s.URL, email, password)
	if err != nil {
		return selfStudent{}, err
	}
	st.token = sess.Access
	if st.cookie, err = formSignIn(s.URL, email, password); err != nil {
		return selfStudent{}, err
	}
	return st, nil
}

// seedCovers gives every title of the catalogue's page 3 a cover, as a
// librarian's upload (a 280×360 JPEG drawn here), so the catalogue page
// is measured with its covers stored; it returns the titles' ids and one
// cover's ETag.
func seedCovers(ctx context.Context, s *svc) (ids []string, etag string, err error) {
	libCtx, _, err := s.asEmail(ctx, demoLibrarian)
	if err != nil {
		return nil, "", err
	}
	a, err := expect(s.URL, rq{Path: "/api/library/catalog/" + demoSchoolDomain + "?page=3"}, 200)
	if err != nil {
		return nil, "", err
	}
	var page struct {
		Books []struct {
			ID string `json:"id"`
		} `json:"books"`
	}
	if err := json.Unmarshal(a.Body, &page); err != nil {
		return nil, "", err
	}
	img := image.NewRGBA(image.Rect(0, 0, 280, 360))
	for y := range 360 {
		for x := range 280 {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 120, 255})
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}); err != nil {
		return nil, "", err
	}
	for _, b := range page.Books {
		c, err := s.App.Library.Covers.Upload(libCtx, "", b.ID, buf.Bytes())
		if err != nil {
			return nil, "", fmt.Errorf("upload a cover: %w", err)
		}
		ids, etag = append(ids, b.ID), c.ETag
	}
	return ids, etag, nil
}

// selfCase is one request measured at one client: first repeated, or
// what nx gives.
type selfCase struct {
	label  string
	limit  time.Duration
	first  rq // for the note
	nx     next
	status int
}

// measureSelf measures the baseline (the desk's loans list) and the
// student's self-service requests at one client, in turn.
func (r *runner) measureSelf(s *svc, sc *school, sr *sizeRun) error {
	st, err := r.seedSelf(context.Background(), s, sc)
	if err != nil {
		return err
	}
	pages := "/library/" + demoSchoolDomain
	coverIDs, etag, err := seedCovers(context.Background(), s)
	if err != nil {
		return err
	}
	coverPath := func(i int64) string {
		return "/api/library/catalog/" + demoSchoolDomain + "/books/" + coverIDs[int(i)%len(coverIDs)] + "/cover"
	}
	var holdN, renewN int64
	cases := []selfCase{
		{label: "baseline: desk loans list `GET /api/library/loans`", first: rq{Path: "/api/library/loans", Token: sc.lib}},
		{label: "catalogue page 3 as the student, its 50 covers stored `GET /library/{domain}/catalog?page=3`", limit: selfPageTarget,
			first: rq{Path: pages + "/catalog?page=3", Cookie: st.cookie}},
		{label: "a cover `GET /api/library/catalog/{domain}/books/{id}/cover` (stored, 50 titles in turn)",
			nx: func(i int64) (rq, int, bool) { return rq{Path: coverPath(i)}, 200, true }},
		{label: "a cover's revalidation (`If-None-Match`: 304)",
			nx: func(int64) (rq, int, bool) {
				return rq{Path: coverPath(int64(len(coverIDs) - 1)), IfNoneMatch: etag}, http.StatusNotModified, true
			}},
		{label: "the student's page (loans out, holds, want to read) `GET /library/{domain}`", first: rq{Path: pages, Cookie: st.cookie}},
		{label: fmt.Sprintf("history page, %d past loans `GET /library/{domain}/my-history`", selfHistory), limit: selfPageTarget,
			first: rq{Path: pages + "/my-history", Cookie: st.cookie}},
		{label: fmt.Sprintf("history, %d past loans `GET /api/library/student/history`", selfHistory), limit: selfPageTarget,
			first: rq{Path: "/api/library/student/history", Token: st.token}},
		{label: "placing a hold `POST /api/library/holds` (a title with its copy out)", limit: selfWriteTarget, status: http.StatusCreated,
			nx: func(int64) (rq, int, bool) {
				if int(holdN) >= len(st.holdable) {
					return rq{}, 0, false
				}
				id := st.holdable[holdN]
				holdN++
				return rq{Method: http.MethodPost, Path: "/api/library/holds", Token: st.token, Body: fmt.Sprintf(`{"book_id":%q}`, id)}, http.StatusCreated, true
			}},
		{label: "renewing `POST /api/library/student/loans/{id}/renew`", limit: selfWriteTarget,
			nx: func(int64) (rq, int, bool) {
				j := int(renewN)
				if j/len(st.renewable) >= selfRenewals {
					return rq{}, 0, false
				}
				renewN++
				return rq{Method: http.MethodPost, Path: "/api/library/student/loans/" + st.renewable[j%len(st.renewable)] + "/renew", Token: st.token}, 200, true
			}},
	}
	if err := r.runSelfCases(s, sr, cases); err != nil {
		return err
	}
	if err := r.measureAppLinks(s, sc, sr, st); err != nil {
		return err
	}
	return r.measureClass(s, sc, sr, st)
}

// runSelfCases measures each case at one client, in turn.
func (r *runner) runSelfCases(s *svc, sr *sizeRun, cases []selfCase) error {
	o := r.o
	for _, c := range cases {
		nx, note := c.nx, ""
		if nx == nil {
			a, err := expect(s.URL, c.first, 200)
			if err != nil {
				return fmt.Errorf("%s: %w", c.label, err)
			}
			nx, note = constant(c.first, 200), fmt.Sprintf("%d bytes", len(a.Body))
		}
		settle(o.settleMax)
		load(c.label+" warm-up", s.URL, 1, int64(max(o.warmup, 1)), nx)
		res := loadMin(c.label, s.URL, 1, 0, o.maxTime, o.minRequests, o.hardTime, int64(o.requests), nx)
		log.Printf("  %s: %d requests, p50 %s, max %s, %d failed %s", c.label, res.N, ms(res.Pct(50)), ms(res.Pct(100)), res.Errs, res.FirstErr)
		sr.reportRows = append(sr.reportRows, reportRow{Label: c.label, Res: res, Note: note, Limit: c.limit, P50Only: true})
	}
	return nil
}
