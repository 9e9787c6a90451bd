package test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/readinglibrary/service/core/catalog"
)

// testBook is a POST /v1/books body: pages 30, three chapters.
func testBook(title, author, genre, level, access string, rating float64) string {
	return fmt.Sprintf(`{"title":%q,"author":%q,"genre":%q,"reading_level":%q,"access":%q,"rating":%v,
		"pages":30,"published_date":"2021-05-04","isbn":"979-8-000000-00-0","language":"en","description":"A test book.",
		"cover":"https://covers.example.org/test.jpg",
		"chapters":[
		 {"title":"One","page_start":1,"page_end":10,"text":"The fox ran. The dog's bone was well-known!"},
		 {"title":"Two","page_start":11,"page_end":20,"text":"Second chapter words here."},
		 {"title":"Three","page_start":21,"page_end":30,"text":"The end."}]}`, title, author, genre, level, access, rating)
}

// createBook posts a book as admin and returns its detail.
func createBook(t *testing.T, s *service, admin, body string) map[string]any {
	t.Helper()
	r := s.do(req{Method: http.MethodPost, Path: "/v1/books", Body: body, Token: admin})
	if r.Status != 201 {
		t.Fatalf("POST /v1/books: %d %s", r.Status, r.Body)
	}
	return r.json(t)
}

func TestBookCatalog(t *testing.T) {
	s := startService(t, testEnv(t, nil))
	admin := s.login(demoAdmin, demoPassword).Access
	reader := s.login(demoReader, demoPassword).Access
	premium := s.login(demoPremium, demoPassword).Access

	// The demo catalog is there.
	r := s.do(req{Path: "/v1/books", Token: reader})
	if r.Status != 200 {
		t.Fatalf("GET /v1/books: %d %s", r.Status, r.Body)
	}
	var list struct {
		Data       []map[string]any `json:"data"`
		Pagination map[string]int   `json:"pagination"`
	}
	_ = json.Unmarshal(r.Body, &list)
	demoCount := list.Pagination["total"]
	if demoCount < 20 || len(list.Data) != 20 || list.Pagination["page"] != 1 || list.Pagination["limit"] != 20 {
		t.Fatalf("demo catalog: %d books, pagination %v", len(list.Data), list.Pagination)
	}

	// Admins add books; others may not.
	book := createBook(t, s, admin, testBook("Les Misérables Écoliers", "Émile Durand", "drama", "advanced", "premium", 4.2))
	id := book["id"].(string)
	if !strings.HasPrefix(id, "bk_") || len(book["chapters"].([]any)) != 3 {
		t.Fatalf("created book = %v", book)
	}
	if r := s.do(req{Method: http.MethodPost, Path: "/v1/books", Body: testBook("X", "Y", "drama", "advanced", "free", 1), Token: reader}); r.Status != 403 {
		t.Fatalf("reader POST /v1/books: %d, want 403", r.Status)
	}

	// Validation: overlapping chapters, chapters past the last page, unknown fields.
	bad := strings.Replace(testBook("Bad", "A", "drama", "advanced", "free", 1), `"page_start":11`, `"page_start":9`, 1)
	r = s.do(req{Method: http.MethodPost, Path: "/v1/books", Body: bad, Token: admin})
	if code, det := r.apiError(t); r.Status != 422 || code != "validation_failed" || det["fields"].(map[string]any)["chapters[1].page_start"] == nil {
		t.Fatalf("overlapping chapters: %d %s", r.Status, r.Body)
	}
	bad = strings.Replace(testBook("Bad", "A", "drama", "advanced", "free", 1), `"pages":30`, `"pages":25`, 1)
	if r := s.do(req{Method: http.MethodPost, Path: "/v1/books", Body: bad, Token: admin}); r.Status != 422 {
		t.Fatalf("chapter past the last page: %d", r.Status)
	}
	bad = strings.Replace(testBook("Bad", "A", "drama", "advanced", "free", 1), `"title":"Bad"`, `"title":"Bad","id":"bk_mine"`, 1)
	if r := s.do(req{Method: http.MethodPost, Path: "/v1/books", Body: bad, Token: admin}); r.Status != 422 {
		t.Fatalf("mass-assigned id: %d", r.Status)
	}

	// Detail.
	r = s.do(req{Path: "/v1/books/" + id, Token: reader})
	detail := r.json(t)
	for _, k := range []string{"id", "title", "author", "cover", "genre", "reading_level", "pages", "description", "rating", "published_date", "isbn", "language", "chapters"} {
		if _, ok := detail[k]; !ok {
			t.Fatalf("detail lacks %s: %v", k, detail)
		}
	}
	chapters := detail["chapters"].([]any)
	first := chapters[0].(map[string]any)
	if first["page_start"] != float64(1) || !strings.HasPrefix(first["id"].(string), "ch_") || chapters[2].(map[string]any)["page_start"] != float64(21) {
		t.Fatalf("chapters = %v", chapters)
	}
	if r := s.do(req{Path: "/v1/books/bk_nothere", Token: reader}); r.Status != 404 {
		t.Fatalf("unknown book: %d", r.Status)
	} else if code, _ := r.apiError(t); code != "book_not_found" {
		t.Fatalf("unknown book code %q", code)
	}

	// Search is case- and accent-insensitive, by word prefixes of title and author.
	for _, q := range []string{"miser ecol", "MISÉR", "emil dur", "écoliers misérables"} {
		r := s.do(req{Path: "/v1/books?search=" + urlQuery(q), Token: reader})
		var found struct {
			Data []map[string]any `json:"data"`
		}
		_ = json.Unmarshal(r.Body, &found)
		if r.Status != 200 || len(found.Data) != 1 || found.Data[0]["id"] != id {
			t.Fatalf("search %q: %d %s", q, r.Status, r.Body)
		}
	}
	r = s.do(req{Path: "/v1/books?search=zzzz", Token: reader})
	if !strings.Contains(string(r.Body), `"data":[]`) || !strings.Contains(string(r.Body), `"total":0`) {
		t.Fatalf("search without match: %s", r.Body)
	}

	// Parameters are validated, never clamped.
	for q, want := range map[string]int{
		"limit=0": 422, "limit=101": 422, "page=0": 422, "page=abc": 400, "limit=1.5": 400,
		"reading_level=expert": 422, "sort=author": 422, "foo=1": 422, "genre[$ne]=x": 422, "page=1&page=2": 422,
	} {
		r := s.do(req{Path: "/v1/books?" + q, Token: reader})
		if r.Status != want {
			t.Errorf("?%s: %d, want %d (%s)", q, r.Status, want, r.Body)
			continue
		}
		r.apiError(t)
	}
	r = s.do(req{Path: "/v1/books?limit=101", Token: reader})
	if _, det := r.apiError(t); det["fields"].(map[string]any)["limit"] != "must be between 1 and 100" {
		t.Fatalf("limit error details: %s", r.Body)
	}

	// Pages: total_pages, a page past the end, sorting.
	total := demoCount + 1
	r = s.do(req{Path: "/v1/books?limit=7&page=2", Token: reader})
	_ = json.Unmarshal(r.Body, &list)
	if list.Pagination["total"] != total || list.Pagination["total_pages"] != (total+6)/7 || len(list.Data) != 7 {
		t.Fatalf("page 2 of 7: %v, %d items", list.Pagination, len(list.Data))
	}
	for _, page := range []string{"99", "100000000000000000"} {
		r = s.do(req{Path: "/v1/books?limit=100&page=" + page, Token: reader})
		if r.Status != 200 || !strings.Contains(string(r.Body), `"data":[]`) {
			t.Fatalf("page %s, past the end: %d %s", page, r.Status, r.Body)
		}
	}
	r = s.do(req{Path: "/v1/books?limit=100", Token: reader})
	_ = json.Unmarshal(r.Body, &list)
	titles := make([]string, 0, len(list.Data))
	for _, b := range list.Data {
		titles = append(titles, strings.Join(catalog.Words(b["title"].(string)), " "))
	}
	if !sort.StringsAreSorted(titles) {
		t.Fatalf("default order is not by title: %v", titles)
	}
	r = s.do(req{Path: "/v1/books?sort=-rating&limit=100", Token: reader})
	_ = json.Unmarshal(r.Body, &list)
	for i := 1; i < len(list.Data); i++ {
		if list.Data[i-1]["rating"].(float64) < list.Data[i]["rating"].(float64) {
			t.Fatalf("-rating order broken at %d", i)
		}
	}
	r = s.do(req{Path: "/v1/books?genre=drama&reading_level=advanced", Token: reader})
	_ = json.Unmarshal(r.Body, &list)
	if len(list.Data) != 1 || list.Data[0]["id"] != id {
		t.Fatalf("genre+level filter: %s", r.Body)
	}

	// Content: a chapter, the whole book, another book's chapter, premium access.
	chID := first["id"].(string)
	r = s.do(req{Path: "/v1/books/" + id + "/content?chapter=" + chID, Token: premium})
	c := r.json(t)
	if r.Status != 200 || c["chapter_id"] != chID || c["title"] != "One" || c["page_number"] != float64(1) ||
		c["word_count"] != float64(8) || c["content"] != "The fox ran. The dog's bone was well-known!" {
		t.Fatalf("chapter content: %d %s", r.Status, r.Body)
	}
	r = s.do(req{Path: "/v1/books/" + id + "/content", Token: premium})
	c = r.json(t)
	if c["chapter_id"] != nil || c["title"] != "Les Misérables Écoliers" || c["page_number"] != float64(1) || c["word_count"] != float64(14) ||
		!strings.HasPrefix(c["content"].(string), "The fox ran.") || !strings.HasSuffix(c["content"].(string), "The end.") {
		t.Fatalf("whole book: %s", r.Body)
	}
	r = s.do(req{Path: "/v1/books/" + id + "/content", Token: reader})
	if code, _ := r.apiError(t); r.Status != 403 || code != "premium_required" {
		t.Fatalf("premium book for a standard reader: %d %s", r.Status, r.Body)
	}
	if r := s.do(req{Path: "/v1/books/" + id + "/content", Token: admin}); r.Status != 200 {
		t.Fatalf("premium book for an admin: %d", r.Status)
	}
	other := createBook(t, s, admin, testBook("Other", "Someone", "drama", "beginner", "free", 3))
	otherCh := other["chapters"].([]any)[0].(map[string]any)["id"].(string)
	r = s.do(req{Path: "/v1/books/" + id + "/content?chapter=" + otherCh, Token: premium})
	if code, _ := r.apiError(t); r.Status != 404 || code != "chapter_not_found" {
		t.Fatalf("another book's chapter: %d %s", r.Status, r.Body)
	}
	if r := s.do(req{Path: "/v1/books/" + other["id"].(string) + "/content", Token: reader}); r.Status != 200 {
		t.Fatalf("free book for a standard reader: %d", r.Status)
	}

	// Admins change and remove books.
	r = s.do(req{Method: http.MethodPatch, Path: "/v1/books/" + id, Body: `{"title":"Renamed Lantern","access":"free"}`, Token: admin})
	if r.Status != 200 || r.json(t)["title"] != "Renamed Lantern" {
		t.Fatalf("PATCH: %d %s", r.Status, r.Body)
	}
	r = s.do(req{Path: "/v1/books?search=lanter", Token: reader})
	if !strings.Contains(string(r.Body), id) {
		t.Fatalf("search by the new title: %s", r.Body)
	}
	if r := s.do(req{Path: "/v1/books/" + id + "/content?chapter=" + chID, Token: reader}); r.Status != 200 {
		t.Fatalf("text after PATCH without chapters: %d %s", r.Status, r.Body)
	}
	if r := s.do(req{Method: http.MethodPatch, Path: "/v1/books/" + id, Body: `{"pages":20}`, Token: admin}); r.Status != 422 {
		t.Fatalf("PATCH pages below the last chapter: %d", r.Status)
	}
	if r := s.do(req{Method: http.MethodPatch, Path: "/v1/books/" + id, Body: `{"title":"x"}`, Token: reader}); r.Status != 403 {
		t.Fatalf("reader PATCH: %d", r.Status)
	}
	if r := s.do(req{Method: http.MethodDelete, Path: "/v1/books/" + id, Token: reader}); r.Status != 403 {
		t.Fatalf("reader DELETE: %d", r.Status)
	}
	for _, rq := range []req{
		{Method: http.MethodPatch, Path: "/v1/books/bk_missing", Body: `{"title":"x"}`, Token: admin},
		{Method: http.MethodDelete, Path: "/v1/books/bk_missing", Token: admin},
		{Path: "/v1/books/bk_missing/content", Token: admin},
	} {
		r := s.do(rq)
		if code, _ := r.apiError(t); r.Status != 404 || code != "book_not_found" {
			t.Fatalf("%s %s: %d %s, want 404 book_not_found", rq.Method, rq.Path, r.Status, r.Body)
		}
	}
	if r := s.do(req{Method: http.MethodDelete, Path: "/v1/books/" + id, Token: admin}); r.Status != 200 {
		t.Fatalf("DELETE: %d %s", r.Status, r.Body)
	}
	if r := s.do(req{Path: "/v1/books/" + id, Token: reader}); r.Status != 404 {
		t.Fatalf("GET after DELETE: %d", r.Status)
	}
	if texts, _ := s.App.Repos.Books.ChapterTexts(context.Background(), id); len(texts) != 0 {
		t.Fatalf("%d chapter texts left after DELETE", len(texts))
	}
}

func TestReadingList(t *testing.T) {
	s := startService(t, testEnv(t, nil))
	admin := s.login(demoAdmin, demoPassword).Access
	st := s.login(demoStudent, demoPassword).Access
	id := createBook(t, s, admin, testBook("Lantern Street", "Ana Lopes", "mystery", "beginner", "free", 4))["id"].(string)
	path := "/v1/books/" + id + "/reading-list"

	r := s.do(req{Method: http.MethodPost, Path: path, Token: st})
	body := r.json(t)
	item := body["reading_list_item"].(map[string]any)
	if r.Status != 200 || body["success"] != true || !strings.Contains(body["message"].(string), "added") ||
		item["status"] != "want_to_read" || item["priority"] != "normal" || !strings.HasPrefix(item["id"].(string), "rl_") || item["book_id"] != id {
		t.Fatalf("first add: %d %s", r.Status, r.Body)
	}
	r = s.do(req{Method: http.MethodPost, Path: path, Body: `{"status":"currently_reading","priority":"high"}`, Token: st})
	again := r.json(t)
	item2 := again["reading_list_item"].(map[string]any)
	if item2["id"] != item["id"] || item2["added_at"] != item["added_at"] || item2["status"] != "currently_reading" || item2["priority"] != "high" ||
		!strings.Contains(again["message"].(string), "updated") {
		t.Fatalf("re-add: %s (first %v)", r.Body, item)
	}
	for _, b := range []string{`{"status":"reading"}`, `{"priority":"urgent"}`, `{"Status":"finished"}`} {
		if r := s.do(req{Method: http.MethodPost, Path: path, Body: b, Token: st}); r.Status != 422 {
			t.Fatalf("body %s: %d, want 422", b, r.Status)
		}
	}
	if r := s.do(req{Method: http.MethodPost, Path: "/v1/books/bk_missing/reading-list", Token: st}); r.Status != 404 {
		t.Fatalf("unknown book: %d", r.Status)
	}

	r = s.do(req{Path: "/v1/users/me/reading-list", Token: st})
	var got struct {
		Data []map[string]any `json:"data"`
	}
	_ = json.Unmarshal(r.Body, &got)
	if len(got.Data) != 1 || got.Data[0]["book"].(map[string]any)["title"] != "Lantern Street" {
		t.Fatalf("reading list: %s", r.Body)
	}
	r = s.do(req{Path: "/v1/users/me/reading-list?status=finished", Token: st})
	if !strings.Contains(string(r.Body), `"data":[]`) {
		t.Fatalf("status filter: %s", r.Body)
	}
	if r := s.do(req{Path: "/v1/users/me/reading-list?status=done", Token: st}); r.Status != 422 {
		t.Fatalf("bad status filter: %d", r.Status)
	}
	// Another account's list is separate.
	other := s.login(demoReader, demoPassword).Access
	r = s.do(req{Path: "/v1/users/me/reading-list", Token: other})
	if strings.Contains(string(r.Body), id) {
		t.Fatalf("another account sees the student's item: %s", r.Body)
	}

	if r := s.do(req{Method: http.MethodDelete, Path: path, Token: st}); r.Status != 200 {
		t.Fatalf("DELETE: %d", r.Status)
	}
	r = s.do(req{Method: http.MethodDelete, Path: path, Token: st})
	if code, _ := r.apiError(t); r.Status != 404 || code != "reading_list_item_not_found" {
		t.Fatalf("second DELETE: %d %s", r.Status, r.Body)
	}

	// Simultaneous adds of one book leave one item, and one "added" answer.
	var wg sync.WaitGroup
	var mu sync.Mutex
	added := 0
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := s.do(req{Method: http.MethodPost, Path: path, Token: st})
			if r.Status == 200 && strings.Contains(string(r.Body), "was added") {
				mu.Lock()
				added++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	r = s.do(req{Path: "/v1/users/me/reading-list", Token: st})
	_ = json.Unmarshal(r.Body, &got)
	if added != 1 || len(got.Data) != 1 {
		t.Fatalf("20 simultaneous adds: %d 'added' answers, %d items; want 1 and 1", added, len(got.Data))
	}
}

func TestReadingProgress(t *testing.T) {
	s := startService(t, testEnv(t, nil))
	admin := s.login(demoAdmin, demoPassword).Access
	st := s.login(demoStudent, demoPassword).Access
	id := createBook(t, s, admin, testBook("Tide Clock", "Ana Lopes", "mystery", "beginner", "free", 4))["id"].(string)
	path := "/v1/books/" + id + "/progress"
	patch := func(body string) response {
		return s.do(req{Method: http.MethodPatch, Path: path, Body: body, Token: st})
	}
	progressOf := func(r response) map[string]any {
		t.Helper()
		if r.Status != 200 {
			t.Fatalf("PATCH progress: %d %s", r.Status, r.Body)
		}
		m := r.json(t)
		if m["success"] != true {
			t.Fatalf("success = %v", m["success"])
		}
		return m["progress"].(map[string]any)
	}
	listStatus := func() string {
		r := s.do(req{Path: "/v1/users/me/reading-list", Token: st})
		var got struct {
			Data []map[string]any `json:"data"`
		}
		_ = json.Unmarshal(r.Body, &got)
		for _, it := range got.Data {
			if it["book_id"] == id {
				return it["status"].(string)
			}
		}
		return ""
	}

	s.do(req{Method: http.MethodPost, Path: "/v1/books/" + id + "/reading-list", Token: st})
	p := progressOf(patch(`{"page_number":10,"time_spent":300}`))
	if p["page_number"] != float64(10) || p["percentage"] != float64(33) || p["time_spent"] != float64(300) || p["completed"] != false || p["book_id"] != id {
		t.Fatalf("first update: %v", p)
	}
	if got := listStatus(); got != "currently_reading" {
		t.Fatalf("after the first update the list says %q, want currently_reading", got)
	}
	p = progressOf(patch(`{"page_number":20,"percentage":50,"time_spent":200}`))
	if p["percentage"] != float64(50) || p["time_spent"] != float64(500) {
		t.Fatalf("second update: %v", p)
	}
	for _, b := range []string{`{"page_number":0}`, `{"page_number":31}`, `{"page_number":5,"time_spent":86401}`, `{"page_number":5,"percentage":101}`, `{"time_spent":5}`, `{"page_number":"5"}`} {
		if r := patch(b); r.Status != 422 {
			t.Fatalf("body %s: %d, want 422", b, r.Status)
		}
	}
	if r := s.do(req{Method: http.MethodPatch, Path: "/v1/books/bk_missing/progress", Body: `{"page_number":1}`, Token: st}); r.Status != 404 {
		t.Fatalf("unknown book: %d", r.Status)
	}

	// Simultaneous sessions all count: totals are sums of insert-only events.
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			patch(`{"page_number":21,"time_spent":7}`)
		}()
	}
	wg.Wait()
	p = progressOf(patch(`{"page_number":30,"time_spent":0}`))
	if p["time_spent"] != float64(500+20*7) || p["completed"] != true || p["percentage"] != float64(100) {
		t.Fatalf("after 20 simultaneous sessions and the last page: %v, want time_spent %d and completed", p, 500+20*7)
	}
	if got := listStatus(); got != "finished" {
		t.Fatalf("after the last page the list says %q, want finished", got)
	}
	acct, _ := s.App.Repos.Accounts.GetByEmail(context.Background(), demoStudent)
	sessions, err := s.App.Repos.Progress.Sessions(context.Background(), acct.ID)
	if err != nil || len(sessions) != 23 {
		t.Fatalf("stored sessions: %d (%v), want 23", len(sessions), err)
	}
	last := sessions[len(sessions)-1]
	if last.LocalDay == "" || last.BookID != id || !last.Completed {
		t.Fatalf("last session event = %+v", last)
	}
}

func TestRecommendations(t *testing.T) {
	s := startService(t, testEnv(t, nil))
	// A new account: popular books at its level.
	r := s.do(req{Method: http.MethodPost, Path: "/api/auth/signup", Body: `{"email":"new@example.org","password":"a-long-password","name":"New"}`})
	if r.Status != 201 {
		t.Fatalf("signup: %d", r.Status)
	}
	fresh := s.login("new@example.org", "a-long-password").Access
	recs := recommendations(t, s, fresh, "")
	if len(recs) != 10 || recs[0]["reason"] != "Popular with readers at your level" {
		t.Fatalf("cold start: %v", recs)
	}
	for _, bad := range []string{"limit=0", "limit=51", "limit=x"} {
		if r := s.do(req{Path: "/v1/books/recommendations?" + bad, Token: fresh}); r.Status != 422 && r.Status != 400 {
			t.Fatalf("?%s: %d", bad, r.Status)
		}
	}
	if got := recommendations(t, s, fresh, "limit=3"); len(got) != 3 {
		t.Fatalf("limit=3 gave %d", len(got))
	}

	// Finish two fantasy books: fantasy comes first, naming a finished book.
	r = s.do(req{Path: "/v1/books?genre=fantasy&limit=100", Token: fresh})
	var list struct {
		Data []map[string]any `json:"data"`
	}
	_ = json.Unmarshal(r.Body, &list)
	var finished []map[string]any
	for _, b := range list.Data {
		if b["access"] == "free" && len(finished) < 2 {
			finished = append(finished, b)
		}
	}
	if len(finished) != 2 {
		t.Fatalf("the demo catalog has %d free fantasy books, want at least 2", len(finished))
	}
	for _, b := range finished {
		pages := int(b["pages"].(float64))
		if r := s.do(req{Method: http.MethodPatch, Path: "/v1/books/" + b["id"].(string) + "/progress", Body: fmt.Sprintf(`{"page_number":%d}`, pages), Token: fresh}); r.Status != 200 {
			t.Fatalf("finish %v: %d %s", b["title"], r.Status, r.Body)
		}
	}
	recs = recommendations(t, s, fresh, "")
	first := recs[0]
	reason := first["reason"].(string)
	if !strings.HasPrefix(reason, "Because you finished ") {
		t.Fatalf("top reason %q, want \"Because you finished <title>\"", reason)
	}
	named := strings.TrimPrefix(reason, "Because you finished ")
	if named != finished[0]["title"] && named != finished[1]["title"] {
		t.Fatalf("reason names %q, not a finished book", named)
	}
	topID := first["book"].(map[string]any)["id"].(string)
	if r := s.do(req{Path: "/v1/books/" + topID, Token: fresh}); r.json(t)["genre"] != "fantasy" {
		t.Fatalf("top recommendation %v is not fantasy", first)
	}
	prev := 2.0
	for _, rec := range recs {
		bid := rec["book"].(map[string]any)["id"]
		if bid == finished[0]["id"] || bid == finished[1]["id"] {
			t.Fatalf("a finished book is recommended: %v", rec)
		}
		c := rec["confidence"].(float64)
		if c < 0 || c > 1 || c > prev {
			t.Fatalf("confidences not in [0,1] and non-increasing: %v", recs)
		}
		prev = c
	}
	// A standard-tier reader is never offered a book it cannot open.
	r = s.do(req{Path: "/v1/books?limit=100", Token: fresh})
	_ = json.Unmarshal(r.Body, &list)
	premiumIDs := map[any]bool{}
	for _, b := range list.Data {
		if b["access"] == "premium" {
			premiumIDs[b["id"]] = true
		}
	}
	if len(premiumIDs) == 0 {
		t.Fatal("the demo catalog has no premium book")
	}
	for _, rec := range recommendations(t, s, fresh, "limit=50") {
		if premiumIDs[rec["book"].(map[string]any)["id"]] {
			t.Fatalf("premium book recommended to a standard reader: %v", rec)
		}
	}
	premium := s.login(demoPremium, demoPassword).Access
	offered := false
	for _, rec := range recommendations(t, s, premium, "limit=50") {
		offered = offered || premiumIDs[rec["book"].(map[string]any)["id"]]
	}
	if !offered {
		t.Fatal("no premium book recommended to a premium reader")
	}

	// Deterministic.
	again := recommendations(t, s, fresh, "")
	if fmt.Sprint(again) != fmt.Sprint(recs) {
		t.Fatal("two identical requests gave different recommendations")
	}
}

func recommendations(t *testing.T, s *service, token, query string) []map[string]any {
	t.Helper()
	path := "/v1/books/recommendations"
	if query != "" {
		path += "?" + query
	}
	r := s.do(req{Path: path, Token: token})
	if r.Status != 200 {
		t.Fatalf("GET %s: %d %s", path, r.Status, r.Body)
	}
	var body struct {
		Recommendations []map[string]any `json:"recommendations"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	for _, rec := range body.Recommendations {
		b := rec["book"].(map[string]any)
		if len(b) != 3 || b["id"] == nil || b["title"] == nil || b["author"] == nil {
			t.Fatalf("recommendation book %v, want exactly id, title, author", b)
		}
	}
	return body.Recommendations
}

func urlQuery(s string) string {
	return strings.NewReplacer(" ", "+", "É", "%C3%89", "é", "%C3%A9").Replace(s)
}
