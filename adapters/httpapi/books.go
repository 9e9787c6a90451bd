package httpapi

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/gorilla/mux"

	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/service"
)

// bookItem is openapi.json's BookItem. Its access (free or premium) lets
// clients tell which books need the premium tier.
type bookItem struct {
	ID            string  `json:"id"`
	Title         string  `json:"title"`
	Author        string  `json:"author"`
	Cover         string  `json:"cover"`
	Genre         string  `json:"genre"`
	ReadingLevel  string  `json:"reading_level"`
	Pages         int     `json:"pages"`
	Description   string  `json:"description"`
	Rating        float64 `json:"rating"`
	PublishedDate *string `json:"published_date"` // null when unknown: never "" against format: date
	Access        string  `json:"access"`
}

// bookDetail is openapi.json's BookDetail.
type bookDetail struct {
	bookItem
	ISBN     string        `json:"isbn"`
	Language string        `json:"language"`
	Chapters []chapterItem `json:"chapters"`
}

type chapterItem struct {
	ID        string `json:"id"`
	Title     string `json:"title"`
	PageStart int    `json:"page_start"`
	PageEnd   int    `json:"page_end"`
}

func toBookItem(b catalog.Book) bookItem {
	return bookItem{
		ID: b.ID, Title: b.Title, Author: b.Author, Cover: b.Cover, Genre: b.Genre, ReadingLevel: b.ReadingLevel,
		Pages: b.Pages, Description: b.Description, Rating: b.Rating, PublishedDate: optional(b.PublishedDate), Access: string(b.Access),
	}
}

// optional is s, or nil (JSON null) when s is "".
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func toBookDetail(b catalog.Book) bookDetail {
	d := bookDetail{bookItem: toBookItem(b), ISBN: b.ISBN, Language: b.Language, Chapters: []chapterItem{}}
	for _, c := range b.Chapters {
		d.Chapters = append(d.Chapters, chapterItem{ID: c.ID, Title: c.Title, PageStart: c.PageStart, PageEnd: c.PageEnd})
	}
	return d
}

type pagination struct {
	Page       int   `json:"page"`
	Limit      int   `json:"limit"`
	Total      int64 `json:"total"`
	TotalPages int   `json:"total_pages"`
}

// queryParams reads a query string strictly: only the named parameters,
// each at most once, so a typo or an injected operator (?genre[$ne]=x) is an
// error instead of an unfiltered answer.
func queryParams(r *http.Request, allowed ...string) (map[string]string, error) {
	values, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, errs.E(errs.Malformed, errs.CodeMalformedQuery, "The query string cannot be parsed.")
	}
	ok := map[string]bool{}
	for _, a := range allowed {
		ok[a] = true
	}
	fields := errs.FieldErrors{}
	out := map[string]string{}
	for k, v := range values {
		switch {
		case !ok[k]:
			fields.Add(k, "is not a known parameter")
		case len(v) > 1:
			fields.Add(k, "must be given once")
		default:
			out[k] = v[0]
		}
	}
	return out, fields.Err()
}

// intParam parses an integer parameter; a value that is not an integer is a
// malformed request (400), a value out of range is for the caller to judge.
func intParam(params map[string]string, name string, def int) (int, error) {
	v, ok := params[name]
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		e := errs.E(errs.Malformed, errs.CodeMalformedQuery, "The parameter %s must be an integer.", name)
		return 0, e.WithDetail("fields", map[string]any{name: "must be an integer"})
	}
	return n, nil
}

// pageParams reads the page (default 1) and limit parameters of a paged
// list; their ranges are for the use case to judge.
func pageParams(params map[string]string, defaultLimit int) (page, limit int, err error) {
	if page, err = intParam(params, "page", 1); err != nil {
		return 0, 0, err
	}
	limit, err = intParam(params, "limit", defaultLimit)
	return page, limit, err
}

func (h *handler) listBooks(w http.ResponseWriter, r *http.Request) {
	p, err := queryParams(r, "page", "limit", "genre", "reading_level", "search", "sort")
	if err != nil {
		writeError(w, r, err)
		return
	}
	page, limit, err := pageParams(p, catalog.DefaultLimit)
	if err != nil {
		writeError(w, r, err)
		return
	}
	q, err := catalog.NewQuery(page, limit, p["genre"], p["reading_level"], p["search"], p["sort"])
	if err != nil {
		writeError(w, r, err)
		return
	}
	books, total, err := h.deps.Catalog.ListBooks(r.Context(), q)
	if err != nil {
		writeError(w, r, err)
		return
	}
	data := make([]bookItem, 0, len(books))
	for _, b := range books {
		data = append(data, toBookItem(b))
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"data":       data,
		"pagination": pagination{Page: q.Page, Limit: q.Limit, Total: total, TotalPages: catalog.TotalPages(total, q.Limit)},
	})
}

func (h *handler) getBook(w http.ResponseWriter, r *http.Request) {
	if _, err := queryParams(r); err != nil {
		writeError(w, r, err)
		return
	}
	b, err := h.deps.Catalog.Book(r.Context(), mux.Vars(r)["book_id"])
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toBookDetail(b))
}

type contentResponse struct {
	BookID     string  `json:"book_id"`
	ChapterID  *string `json:"chapter_id"`
	Title      string  `json:"title"`
	Content    string  `json:"content"`
	PageNumber int     `json:"page_number"`
	WordCount  int     `json:"word_count"`
}

func (h *handler) getContent(w http.ResponseWriter, r *http.Request) {
	p, err := queryParams(r, "chapter")
	if err != nil {
		writeError(w, r, err)
		return
	}
	c, err := h.deps.Catalog.Content(r.Context(), mux.Vars(r)["book_id"], p["chapter"])
	if err != nil {
		writeError(w, r, err)
		return
	}
	resp := contentResponse{BookID: c.BookID, Title: c.Title, Content: c.Text, PageNumber: c.PageNumber, WordCount: c.WordCount}
	if c.ChapterID != "" {
		resp.ChapterID = &c.ChapterID
	}
	writeJSON(w, http.StatusOK, resp)
}

// chapterRequest and bookRequest are the POST /v1/books body.
type chapterRequest struct {
	Title     string `json:"title"`
	PageStart int    `json:"page_start" validate:"min=1"`
	PageEnd   int    `json:"page_end"`
	Text      string `json:"text" validate:"min=1"`
}

type bookRequest struct {
	Title         string           `json:"title"`
	Author        string           `json:"author"`
	Cover         string           `json:"cover"`
	Genre         string           `json:"genre"`
	ReadingLevel  string           `json:"reading_level"`
	Pages         int              `json:"pages" validate:"min=1"`
	Description   string           `json:"description"`
	Rating        float64          `json:"rating" validate:"min=0"`
	PublishedDate *string          `json:"published_date" validate:"omitnil,datetime=2006-01-02"`
	ISBN          string           `json:"isbn"`
	Language      string           `json:"language"`
	Access        *string          `json:"access" validate:"omitnil,oneof=free premium"`
	Chapters      []chapterRequest `json:"chapters" validate:"dive"`
}

func toChapterDrafts(cs []chapterRequest) []catalog.ChapterDraft {
	out := make([]catalog.ChapterDraft, 0, len(cs))
	for _, c := range cs {
		out = append(out, catalog.ChapterDraft{Title: c.Title, PageStart: c.PageStart, PageEnd: c.PageEnd, Text: c.Text})
	}
	return out
}

func (h *handler) createBook(w http.ResponseWriter, r *http.Request) {
	var req bookRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	b, err := h.deps.Catalog.CreateBook(r.Context(), catalog.BookDraft{
		Title: req.Title, Author: req.Author, Cover: req.Cover, Genre: req.Genre, ReadingLevel: req.ReadingLevel,
		Pages: req.Pages, Description: req.Description, Rating: req.Rating, PublishedDate: deref(req.PublishedDate),
		ISBN: req.ISBN, Language: req.Language, Access: catalog.Access(deref(req.Access)), Chapters: toChapterDrafts(req.Chapters),
	})
	if err != nil {
		writeError(w, r, err)
		return
	}
	w.Header().Set("Location", "/v1/books/"+b.ID)
	writeJSON(w, http.StatusCreated, toBookDetail(b))
}

// bookPatchRequest is the PATCH /v1/books/{id} body: every field optional.
type bookPatchRequest struct {
	Title         *string          `json:"title" validate:"omitnil,min=1"`
	Author        *string          `json:"author" validate:"omitnil,min=1"`
	Cover         *string          `json:"cover"`
	Genre         *string          `json:"genre"`
	ReadingLevel  *string          `json:"reading_level" validate:"omitnil,oneof=beginner intermediate advanced"`
	Pages         *int             `json:"pages" validate:"omitnil,min=1"`
	Description   *string          `json:"description"`
	Rating        *float64         `json:"rating" validate:"omitnil,min=0"`
	PublishedDate *string          `json:"published_date" validate:"omitnil,datetime=2006-01-02"`
	ISBN          *string          `json:"isbn"`
	Language      *string          `json:"language"`
	Access        *string          `json:"access" validate:"omitnil,oneof=free premium"`
	Chapters      []chapterRequest `json:"chapters" validate:"omitempty,dive"` // nil when left out (null is refused)
}

func (h *handler) updateBook(w http.ResponseWriter, r *http.Request) {
	var req bookPatchRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	p := service.BookPatch{
		Title: req.Title, Author: req.Author, Cover: req.Cover, Genre: req.Genre, ReadingLevel: req.ReadingLevel,
		Pages: req.Pages, Description: req.Description, Rating: req.Rating, PublishedDate: req.PublishedDate,
		ISBN: req.ISBN, Language: req.Language,
	}
	if req.Access != nil {
		a := catalog.Access(*req.Access)
		p.Access = &a
	}
	if req.Chapters != nil {
		cs := toChapterDrafts(req.Chapters)
		p.Chapters = &cs
	}
	b, err := h.deps.Catalog.UpdateBook(r.Context(), mux.Vars(r)["book_id"], p)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toBookDetail(b))
}

func (h *handler) deleteBook(w http.ResponseWriter, r *http.Request) {
	if err := h.deps.Catalog.DeleteBook(r.Context(), mux.Vars(r)["book_id"]); err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, successBody{Success: true, Message: "The book was deleted."})
}

type successBody struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
}

// listItem is openapi.json's ReadingListItem.
type listItem struct {
	ID       string     `json:"id"`
	BookID   string     `json:"book_id"`
	Status   string     `json:"status"`
	Priority string     `json:"priority"`
	AddedAt  string     `json:"added_at"`
	Book     *bookBrief `json:"book,omitempty"`
}

type bookBrief struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Author string `json:"author"`
	Cover  string `json:"cover,omitempty"`
}

func toListItem(it catalog.ListItem) listItem {
	return listItem{ID: it.ID, BookID: it.BookID, Status: string(it.Status), Priority: string(it.Priority), AddedAt: timestamp(it.AddedAt)}
}

type readingListRequest struct {
	Status   *string `json:"status" validate:"omitnil,oneof=want_to_read currently_reading finished"`
	Priority *string `json:"priority" validate:"omitnil,oneof=low normal high"`
}

// addToList accepts an empty body too: the defaults are want_to_read and
// normal.
func (h *handler) addToList(w http.ResponseWriter, r *http.Request) {
	var req readingListRequest
	if httpedge.HasBody(r) {
		if err := decodeJSON(w, r, &req); err != nil {
			writeError(w, r, err)
			return
		}
	}
	item, created, err := h.deps.Catalog.AddToList(r.Context(), mux.Vars(r)["book_id"], catalog.ListStatus(deref(req.Status)), catalog.Priority(deref(req.Priority)))
	if err != nil {
		writeError(w, r, err)
		return
	}
	msg := "The book was added to your reading list."
	if !created {
		msg = "The book was already on your reading list; its status and priority were updated."
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "message": msg, "reading_list_item": toListItem(item)})
}

func (h *handler) removeFromList(w http.ResponseWriter, r *http.Request) {
	if err := h.deps.Catalog.RemoveFromList(r.Context(), mux.Vars(r)["book_id"]); err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, successBody{Success: true, Message: "The book was removed from your reading list."})
}

func (h *handler) getReadingList(w http.ResponseWriter, r *http.Request) {
	p, err := queryParams(r, "status")
	if err != nil {
		writeError(w, r, err)
		return
	}
	entries, err := h.deps.Catalog.ReadingList(r.Context(), catalog.ListStatus(p["status"]))
	if err != nil {
		writeError(w, r, err)
		return
	}
	data := make([]listItem, 0, len(entries))
	for _, e := range entries {
		it := toListItem(e.Item)
		if e.Book != nil {
			it.Book = &bookBrief{ID: e.Book.ID, Title: e.Book.Title, Author: e.Book.Author, Cover: e.Book.Cover}
		}
		data = append(data, it)
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data})
}

type progressRequest struct {
	PageNumber *int     `json:"page_number" validate:"required,min=1"`
	Percentage *float64 `json:"percentage" validate:"omitnil,min=0"`
	TimeSpent  *int     `json:"time_spent" validate:"omitnil,min=0"`
}

// progressBody is openapi.json's Progress.
type progressBody struct {
	BookID     string  `json:"book_id"`
	PageNumber int     `json:"page_number"`
	Percentage float64 `json:"percentage"`
	TimeSpent  int64   `json:"time_spent"`
	LastRead   string  `json:"last_read"`
	Completed  bool    `json:"completed"`
}

func (h *handler) updateProgress(w http.ResponseWriter, r *http.Request) {
	var req progressRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	u := catalog.ProgressUpdate{PageNumber: *req.PageNumber, Percentage: req.Percentage}
	if req.TimeSpent != nil {
		u.TimeSpent = *req.TimeSpent
	}
	v, err := h.deps.Catalog.UpdateProgress(r.Context(), mux.Vars(r)["book_id"], u)
	if err != nil {
		writeError(w, r, err)
		return
	}
	pr := v.Progress
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "progress": progressBody{
		BookID: pr.BookID, PageNumber: pr.PageNumber, Percentage: pr.Percentage, TimeSpent: v.TotalSeconds,
		LastRead: timestamp(pr.LastRead), Completed: pr.Completed(),
	}})
}

type recommendationBody struct {
	Book       bookBrief `json:"book"`
	Reason     string    `json:"reason"`
	Confidence float64   `json:"confidence"`
}

func (h *handler) recommendations(w http.ResponseWriter, r *http.Request) {
	p, err := queryParams(r, "limit")
	if err != nil {
		writeError(w, r, err)
		return
	}
	limit, err := intParam(p, "limit", catalog.DefaultRecommendations)
	if err != nil {
		writeError(w, r, err)
		return
	}
	recs, err := h.deps.Catalog.Recommendations(r.Context(), limit)
	if err != nil {
		writeError(w, r, err)
		return
	}
	out := make([]recommendationBody, 0, len(recs))
	for _, rec := range recs {
		out = append(out, recommendationBody{
			Book:   bookBrief{ID: rec.Book.ID, Title: rec.Book.Title, Author: rec.Book.Author}, // only what openapi.json's Recommendation.book holds
			Reason: rec.Reason, Confidence: rec.Confidence,
		})
	}
	writeJSON(w, http.StatusOK, map[string]any{"recommendations": out})
}
