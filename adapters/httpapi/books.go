package httpapi

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/gorilla/mux"

	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/core/service/reading"
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
	return bookDetail{bookItem: toBookItem(b), ISBN: b.ISBN, Language: b.Language, Chapters: mapSlice(b.Chapters, func(c catalog.Chapter) chapterItem {
		return chapterItem{ID: c.ID, Title: c.Title, PageStart: c.PageStart, PageEnd: c.PageEnd}
	})}
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
	p, lq, ok := pageQuery(w, r, catalog.DefaultLimit, "genre", "reading_level", "search", "sort")
	if !ok {
		return
	}
	q, err := catalog.NewQuery(lq.Page, lq.Limit, p["genre"], p["reading_level"], p["search"], p["sort"])
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	books, total, err := h.deps.Books.ListBooks(r.Context(), q)
	respond(w, r, http.StatusOK, bookListReply{Data: mapSlice(books, toBookItem), Pagination: pageOf(q.Page, q.Limit, total)}, err)
}

// bookID is the route's {book_id}.
func bookID(r *http.Request) string { return mux.Vars(r)["book_id"] }

type contentResponse struct {
	BookID     string  `json:"book_id"`
	ChapterID  *string `json:"chapter_id"`
	Title      string  `json:"title"`
	Content    string  `json:"content"`
	PageNumber int     `json:"page_number"`
	WordCount  int     `json:"word_count"`
}

func (h *handler) getContent(w http.ResponseWriter, r *http.Request) {
	p, ok := params(w, r, "chapter")
	if !ok {
		return
	}
	c, err := h.deps.Books.Content(r.Context(), bookID(r), p["chapter"])
	resp := contentResponse{BookID: c.BookID, Title: c.Title, Content: c.Text, PageNumber: c.PageNumber, WordCount: c.WordCount}
	if c.ChapterID != "" {
		resp.ChapterID = &c.ChapterID
	}
	respond(w, r, http.StatusOK, resp, err)
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
	return mapSlice(cs, func(c chapterRequest) catalog.ChapterDraft {
		return catalog.ChapterDraft{Title: c.Title, PageStart: c.PageStart, PageEnd: c.PageEnd, Text: c.Text}
	})
}

func (h *handler) createBook(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeBody[bookRequest](w, r)
	if !ok {
		return
	}
	b, err := h.deps.Books.CreateBook(r.Context(), catalog.BookDraft{
		Title: req.Title, Author: req.Author, Cover: req.Cover, Genre: req.Genre, ReadingLevel: req.ReadingLevel,
		Pages: req.Pages, Description: req.Description, Rating: req.Rating, PublishedDate: deref(req.PublishedDate),
		ISBN: req.ISBN, Language: req.Language, Access: catalog.Access(deref(req.Access)), Chapters: toChapterDrafts(req.Chapters),
	})
	if err == nil {
		w.Header().Set("Location", "/v1/books/"+b.ID)
	}
	respond(w, r, http.StatusCreated, toBookDetail(b), err)
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
	req, ok := decodeBody[bookPatchRequest](w, r)
	if !ok {
		return
	}
	p := reading.BookPatch{
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
	b, err := h.deps.Books.UpdateBook(r.Context(), bookID(r), p)
	respond(w, r, http.StatusOK, toBookDetail(b), err)
}

func (h *handler) deleteBook(w http.ResponseWriter, r *http.Request) {
	err := h.deps.Books.DeleteBook(r.Context(), bookID(r))
	respond(w, r, http.StatusOK, successBody{Success: true, Message: "The book was deleted."}, err)
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
			httpedge.WriteError(w, r, err)
			return
		}
	}
	added, err := h.deps.Books.AddToListAndHold(r.Context(), bookID(r), catalog.ListStatus(deref(req.Status)), catalog.Priority(deref(req.Priority)))
	msg := "The book was added to your reading list."
	if !added.Created {
		msg = "The book was already on your reading list; its status and priority were updated."
	}
	respond(w, r, http.StatusOK, readingListAddedReply{LibraryHold: toListHoldBody(added.Hold), Success: true, Message: msg,
		ReadingListItem: toListItem(added.Item)}, err)
}

func (h *handler) removeFromList(w http.ResponseWriter, r *http.Request) {
	err := h.deps.Books.RemoveFromList(r.Context(), bookID(r))
	respond(w, r, http.StatusOK, successBody{Success: true, Message: "The book was removed from your reading list."}, err)
}

// toListEntry is a reading list's item with its book, when the book is
// still in the catalog.
func toListEntry(e reading.ListEntry) listItem {
	it := toListItem(e.Item)
	if e.Book != nil {
		it.Book = &bookBrief{ID: e.Book.ID, Title: e.Book.Title, Author: e.Book.Author, Cover: e.Book.Cover}
	}
	return it
}

func (h *handler) getReadingList(w http.ResponseWriter, r *http.Request) {
	p, ok := params(w, r, "status")
	if !ok {
		return
	}
	entries, err := h.deps.Books.ReadingList(r.Context(), catalog.ListStatus(p["status"]))
	respond(w, r, http.StatusOK, readingListReply{Data: mapSlice(entries, toListEntry)}, err)
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
	req, ok := decodeBody[progressRequest](w, r)
	if !ok {
		return
	}
	u := catalog.ProgressUpdate{PageNumber: *req.PageNumber, Percentage: req.Percentage}
	if req.TimeSpent != nil {
		u.TimeSpent = *req.TimeSpent
	}
	v, err := h.deps.Books.UpdateProgress(r.Context(), bookID(r), u)
	pr := v.Progress
	respond(w, r, http.StatusOK, progressReply{Success: true, Progress: progressBody{
		BookID: pr.BookID, PageNumber: pr.PageNumber, Percentage: pr.Percentage, TimeSpent: v.TotalSeconds,
		LastRead: timestamp(pr.LastRead), Completed: pr.Completed(),
	}}, err)
}

type recommendationBody struct {
	Book       bookBrief `json:"book"`
	Reason     string    `json:"reason"`
	Confidence float64   `json:"confidence"`
}

// toRecommendationBody says the reason in lang (the request's
// Accept-Language, as an error's message).
func toRecommendationBody(lang i18n.Lang, rec catalog.Recommendation) recommendationBody {
	return recommendationBody{
		Book:   bookBrief{ID: rec.Book.ID, Title: rec.Book.Title, Author: rec.Book.Author}, // only what openapi.json's Recommendation.book holds
		Reason: rec.Why.In(lang), Confidence: rec.Confidence,
	}
}

func (h *handler) recommendations(w http.ResponseWriter, r *http.Request) {
	p, ok := params(w, r, "limit")
	if !ok {
		return
	}
	limit, err := intParam(p, "limit", catalog.DefaultRecommendations)
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	recs, err := h.deps.Books.Recommendations(r.Context(), limit)
	lang := httpedge.MessageLang(r)
	w.Header().Set("Content-Language", string(lang))
	respond(w, r, http.StatusOK, recommendationsReply{Recommendations: mapSlice(recs, func(rec catalog.Recommendation) recommendationBody { return toRecommendationBody(lang, rec) })}, err)
}
