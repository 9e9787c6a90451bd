package test

import (
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/readinglibrary/service/adapters/labels/labelstest"
)

const mmPt = 72 / 25.4

// settingsWith is a settings body with the four settings every change
// names, and more.
func settingsWith(more string) string {
	return `{"default_loan_days":14,"max_renewals":2,"renewal_days":7,"allow_public_catalog":true,` + more + `}`
}

// pdfPages checks a 200 PDF answer and reads its pages.
func pdfPages(t *testing.T, r response) []labelstest.Page {
	t.Helper()
	if r.Status != 200 || r.Header.Get("Content-Type") != "application/pdf" {
		t.Fatalf("status %d, type %q, want a PDF: %.300s", r.Status, r.Header.Get("Content-Type"), r.Body)
	}
	pages, err := labelstest.Read(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return pages
}

// labelAt returns the texts drawn inside position n (from 0) of a grid of
// labels whose upper-left corner is (left, top) mm with the given pitches
// and size, on a page h mm high.
func labelAt(p labelstest.Page, n, cols int, left, top, pitchX, pitchY, w, h float64) []string {
	x := (left + float64(n%cols)*pitchX) * mmPt
	y := p.Height - (top+float64(n/cols)*pitchY+h)*mmPt
	var got []string
	for _, tx := range p.Texts {
		if tx.X >= x && tx.X < x+w*mmPt && tx.Y > y && tx.Y < y+h*mmPt {
			got = append(got, tx.S)
		}
	}
	return got
}

// TestSpineLabelsSheetsAndCards prints spine labels with the school's
// prefix on mini labels from a chosen position, barcode labels on the
// other sheets and a custom grid, and a homeroom's patron cards, and
// checks how bad requests are answered and that they change nothing.
func TestSpineLabelsSheetsAndCards(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	teacher := s.login("teacher@maplegrove.example.org", demoPassword).Access
	n := 0
	unique := func() int { n++; return n }
	if r := s.do(req{Method: http.MethodPut, Path: "/api/library/settings", Token: w.libA, Body: settingsWith(`"label_prefix":"  MGS "`)}); r.Status != 200 ||
		r.json(t)["label_prefix"] != "MGS" {
		t.Fatalf("set the label prefix: %d %s", r.Status, r.Body)
	}
	bookID, copies := w.addBook(t, w.libA, `{"title":"Matilda","author":"Roald Dahl","copies":3,"call_number":"FIC DAH"}`)
	path := "/api/library/copies/labels?book_id=" + bookID

	t.Run("SpineLabelsFromAPosition", func(t *testing.T) {
		r := s.do(req{Path: path + "&kind=spine&paper=L7651&start=4", Token: w.libA})
		pages := pdfPages(t, r)
		if len(pages) != 1 || math.Abs(pages[0].Width-210*mmPt) > 0.5 {
			t.Fatalf("%d pages, width %.1f; want one A4 page", len(pages), pages[0].Width)
		}
		if cd := r.Header.Get("Content-Disposition"); cd != `inline; filename="spine-`+bookID+`.pdf"` {
			t.Errorf("Content-Disposition %q", cd)
		}
		// Avery L7651: 5 x 13 labels of 38.1 x 21.2 mm from (4.67, 10.7).
		for n := range 3 + len(copies) {
			got := labelAt(pages[0], n, 5, 4.67, 10.7, 40.64, 21.2, 38.1, 21.2)
			want := []string{"MGS", "FIC", "DAH"}
			if n < 3 {
				want = nil // before the start: the sheet's used labels
			}
			if !slices.Equal(got, want) {
				t.Errorf("position %d shows %q, want %q", n+1, got, want)
			}
		}
		if got := len(pages[0].Texts); got != 3*len(copies) {
			t.Errorf("%d text runs, want %d", got, 3*len(copies))
		}
	})
	t.Run("OtherSheets", func(t *testing.T) {
		for _, tc := range []struct {
			query string
			width float64
		}{
			{"&paper=l7163", 210 * mmPt},
			{"&paper=5160&start=30", 612},
			{"&paper=custom&page_width_mm=100&page_height_mm=150&columns=2&rows=3&left_mm=3&top_mm=6&label_width_mm=45&label_height_mm=40&pitch_x_mm=50&pitch_y_mm=45", 100 * mmPt},
		} {
			pages := pdfPages(t, s.do(req{Path: path + tc.query, Token: w.libA}))
			if math.Abs(pages[0].Width-tc.width) > 0.5 {
				t.Errorf("%s: width %.1f pt, want %.1f", tc.query, pages[0].Width, tc.width)
			}
			var codes int
			for _, p := range pages {
				for _, tx := range p.Texts {
					for _, c := range copies {
						if tx.S == c["code"] {
							codes++
						}
					}
				}
			}
			if codes != len(copies) {
				t.Errorf("%s: %d codes printed, want %d", tc.query, codes, len(copies))
			}
			if strings.Contains(tc.query, "start=30") && len(pages) != 2 {
				t.Errorf("from the last position of a 5160 sheet: %d pages, want 2", len(pages))
			}
		}
	})

	t.Run("ShelveACopy", func(t *testing.T) {
		copyPath := "/api/library/copies/" + copies[0]["id"].(string)
		codePath := "/api/library/copies?code=" + copies[0]["code"].(string)
		r := s.do(req{Method: http.MethodPatch, Path: copyPath, Token: w.libA, Body: `{"action":"shelve","call_number":"  REF   823 ","location":"Juniors"}`})
		if r.Status != 200 {
			t.Fatalf("shelve: %d %s", r.Status, r.Body)
		}
		if c, _ := r.json(t)["copy"].(map[string]any); c["call_number"] != "REF 823" || c["location"] != "Juniors" {
			t.Fatalf("shelved copy %v, want call number REF 823 at Juniors", c)
		}
		// Its spine label now carries its own call number and location;
		// the book's other copies keep the book's. Labels go in the order
		// of the copies' codes.
		codes := make([]string, len(copies))
		for i, c := range copies {
			codes[i] = c["code"].(string)
		}
		slices.Sort(codes)
		shelved := slices.Index(codes, copies[0]["code"].(string))
		pages := pdfPages(t, s.do(req{Path: path + "&kind=spine&paper=l7651", Token: w.libA}))
		for n := range copies {
			want := []string{"MGS", "FIC", "DAH"}
			if n == shelved {
				want = []string{"MGS", "REF", "823", "Juniors"}
			}
			if got := labelAt(pages[0], n, 5, 4.67, 10.7, 40.64, 21.2, 38.1, 21.2); !slices.Equal(got, want) {
				t.Errorf("spine label %d shows %q, want %q", n+1, got, want)
			}
		}
		// Bad changes are refused and change nothing.
		for _, tc := range []struct {
			name, token, body string
			status            int
			code, field       string
		}{
			{"NothingToShelve", w.libA, `{"action":"shelve"}`, 422, "validation_failed", "call_number"},
			{"ShelfWithCheckin", w.libA, `{"action":"checkin","location":"Seniors"}`, 422, "validation_failed", "action"},
			{"CallNumberTooLong", w.libA, `{"action":"shelve","call_number":"` + strings.Repeat("9", 65) + `","location":"Seniors"}`, 422, "validation_failed", "call_number"},
			{"LocationWithControl", w.libA, `{"action":"shelve","location":"Sen\u0007iors"}`, 422, "validation_failed", "location"},
			{"OtherSchoolsLibrarian", w.libB, `{"action":"shelve","location":"Seniors"}`, 404, "copy_not_found", ""},
			{"Student", w.studentA, `{"action":"shelve","location":"Seniors"}`, 403, "forbidden", ""},
		} {
			r := s.do(req{Method: http.MethodPatch, Path: copyPath, Token: tc.token, Body: tc.body})
			if r.Status != tc.status {
				t.Errorf("%s: status %d, want %d: %s", tc.name, r.Status, tc.status, r.Body)
				continue
			}
			code, details := r.apiError(t)
			if code != tc.code {
				t.Errorf("%s: code %q, want %q", tc.name, code, tc.code)
			}
			if fields, _ := details["fields"].(map[string]any); tc.field != "" && fields[tc.field] == nil {
				t.Errorf("%s: details.fields %v, want %q", tc.name, details["fields"], tc.field)
			}
		}
		if c, _ := s.do(req{Path: codePath, Token: w.libA}).json(t)["copy"].(map[string]any); c["call_number"] != "REF 823" || c["location"] != "Juniors" {
			t.Errorf("after refused changes the copy is %v, want REF 823 at Juniors", c)
		}
		// "" removes the copy's own call number: the book's is printed again.
		if r := s.do(req{Method: http.MethodPatch, Path: copyPath, Token: w.libA, Body: `{"action":"shelve","call_number":""}`}); r.Status != 200 {
			t.Fatalf("clear the call number: %d %s", r.Status, r.Body)
		}
		pages = pdfPages(t, s.do(req{Path: path + "&kind=spine&paper=l7651", Token: w.libA}))
		if got, want := labelAt(pages[0], shelved, 5, 4.67, 10.7, 40.64, 21.2, 38.1, 21.2), []string{"MGS", "FIC", "DAH", "Juniors"}; !slices.Equal(got, want) {
			t.Errorf("after clearing its call number the spine label shows %q, want %q", got, want)
		}
	})

	room := fmt.Sprintf("Cards-%d", unique())
	students := []struct{ name, number string }{{"Zoe Card", "ZC-1"}, {"Adam Card", "AC-2"}, {"Nora Nonumber", ""}}
	for _, st := range students {
		body := fmt.Sprintf(`{"name":%q,"homeroom":%q}`, st.name, room)
		if st.number != "" {
			body = fmt.Sprintf(`{"name":%q,"homeroom":%q,"student_number":%q}`, st.name, room, st.number)
		}
		if r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: w.libA, Body: body}); r.Status != 201 {
			t.Fatalf("student %s: %d %s", st.name, r.Status, r.Body)
		}
	}
	t.Run("CardsOfAHomeroom", func(t *testing.T) {
		r := s.do(req{Path: "/api/library/students/cards?paper=l7163&homeroom=" + strings.ToLower(room), Token: w.staffA})
		pages := pdfPages(t, r)
		if r.Header.Get("X-Total-Count") != "3" || r.Header.Get("X-Skipped-Count") != "1" {
			t.Errorf("X-Total-Count %q, X-Skipped-Count %q; want 3 and 1 (the student without a number)", r.Header.Get("X-Total-Count"), r.Header.Get("X-Skipped-Count"))
		}
		// Avery L7163: 2 x 7 labels of 99.1 x 38.1 mm from (4.65, 15.15);
		// by name: Adam, then Zoe.
		for n, want := range [][]string{{"Maplegrove Primary", "Adam Card", room, "AC-2"}, {"Maplegrove Primary", "Zoe Card", room, "ZC-1"}, nil} {
			got := labelAt(pages[0], n, 2, 4.65, 15.15, 101.6, 38.1, 99.1, 38.1)
			if len(got) > 0 && want != nil {
				want[0] = got[0] // the school's name as the world spells it
			}
			if !slices.Equal(got, want) {
				t.Errorf("card %d shows %q, want %q", n+1, got, want)
			}
		}
		if len(pages[0].Rects) == 0 {
			t.Error("no barcode bars on the cards")
		}
	})

	// A student number too long for a mini label's barcode.
	long := fmt.Sprintf("Long-%d", unique())
	if r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: w.libA,
		Body: fmt.Sprintf(`{"name":"Lana Long","homeroom":%q,"student_number":"%s"}`, long, strings.Repeat("W", 30))}); r.Status != 201 {
		t.Fatalf("long number: %d %s", r.Status, r.Body)
	}
	nobodyNumbered := fmt.Sprintf("Nonum-%d", unique())
	if r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: w.libA,
		Body: fmt.Sprintf(`{"name":"Ned Nonumber","homeroom":%q}`, nobodyNumbered)}); r.Status != 201 {
		t.Fatalf("student without a number: %d %s", r.Status, r.Body)
	}
	cards := "/api/library/students/cards?homeroom=" + room
	for _, tc := range []struct {
		name, path, token string
		status            int
		code, field       string
	}{
		{"CustomWithoutItsGrid", path + "&paper=custom&columns=2", w.libA, 422, "validation_failed", "page_width_mm"},
		{"GridWithANamedPaper", path + "&paper=l7160&columns=2", w.libA, 422, "validation_failed", "columns"},
		{"OverlappingGrid", path + "&paper=custom&page_width_mm=100&page_height_mm=150&columns=2&rows=3&left_mm=3&top_mm=6&label_width_mm=45&label_height_mm=40&pitch_x_mm=30", w.libA, 422, "validation_failed", "pitch_x_mm"},
		{"GridOffThePage", path + "&paper=custom&page_width_mm=100&page_height_mm=150&columns=3&rows=3&left_mm=3&top_mm=6&label_width_mm=45&label_height_mm=40", w.libA, 422, "validation_failed", "columns"},
		{"NotANumber", path + "&paper=custom&page_width_mm=wide&page_height_mm=150&columns=2&rows=3&left_mm=3&top_mm=6&label_width_mm=45&label_height_mm=40", w.libA, 422, "validation_failed", "page_width_mm"},
		{"StartPastTheSheet", path + "&start=22", w.libA, 422, "validation_failed", "start"},
		{"StartZero", path + "&paper=l7651&start=0", w.libA, 422, "validation_failed", "start"},
		{"UnknownKind", path + "&kind=qr", w.libA, 422, "validation_failed", "kind"},
		{"UnknownPaper", cards + "&paper=l7999", w.libA, 422, "validation_failed", "paper"},
		{"NumberTooLongForMiniLabels", "/api/library/students/cards?paper=l7651&homeroom=" + long, w.libA, 422, "validation_failed", "paper"},
		{"HomeroomTooLong", "/api/library/students/cards?homeroom=" + strings.Repeat("x", 40), w.libA, 422, "validation_failed", "homeroom"},
		{"NobodyInTheHomeroom", "/api/library/students/cards?homeroom=Empty-Room", w.libA, 404, "student_not_found", ""},
		{"NobodyWithANumber", "/api/library/students/cards?homeroom=" + nobodyNumbered, w.libA, 404, "student_not_found", ""},
		{"PagePastTheLast", cards + "&page=2&limit=3", w.libA, 404, "student_not_found", ""},
		{"Student", cards, w.studentA, 403, "forbidden", ""},
		{"Teacher", cards, teacher, 403, "forbidden", ""},
		{"OtherSchoolsLibrarian", cards, w.libB, 404, "student_not_found", ""},
		{"Anonymous", cards, "", 401, "unauthorized", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := s.do(req{Path: tc.path, Token: tc.token})
			if r.Status != tc.status {
				t.Fatalf("status %d, want %d: %.300s", r.Status, tc.status, r.Body)
			}
			code, details := r.apiError(t)
			if code != tc.code {
				t.Errorf("code %q, want %q", code, tc.code)
			}
			if tc.field != "" {
				if fields, _ := details["fields"].(map[string]any); fields[tc.field] == nil {
					t.Errorf("details.fields %v, want %q", details["fields"], tc.field)
				}
			}
		})
	}
	t.Run("PrefixTooLongChangesNothing", func(t *testing.T) {
		r := s.do(req{Method: http.MethodPut, Path: "/api/library/settings", Token: w.libA, Body: settingsWith(`"label_prefix":"Maplegrove Library"`)})
		if r.Status != 422 {
			t.Fatalf("status %d: %s", r.Status, r.Body)
		}
		if _, d := r.apiError(t); d["fields"].(map[string]any)["label_prefix"] == nil {
			t.Errorf("details %v, want label_prefix", d)
		}
		if got := s.do(req{Path: "/api/library/settings", Token: w.libA}).json(t)["label_prefix"]; got != "MGS" {
			t.Errorf("label_prefix %v after a refused change, want MGS", got)
		}
	})
}
