package catalog

import (
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/user"
)

// Sort orders a book list.
type Sort string

// Sort orders, the values of the sort parameter that openapi.json lists;
// every order ends with the id so pages are stable.
const (
	SortTitle         Sort = "title"
	SortRatingDesc    Sort = "-rating"
	SortPublishedDesc Sort = "-published_date"
)

// List limits: the limit parameter's default and largest value, as
// openapi.json documents them.
const (
	DefaultLimit = 20
	MaxLimit     = 100
)

// Query selects one page of the catalog.
type Query struct {
	Page         int // from 1
	Limit        int // 1..MaxLimit
	Genre        string
	ReadingLevel string
	Terms        []string // QueryTerms of the search text; every one must match
	Sort         Sort
}

// maxSkip bounds Skip far beyond any catalog, so an absurd page number is
// just a page past the end instead of an overflow.
const maxSkip = 1 << 31

// Skip is the number of books before the page.
func (q Query) Skip() int {
	if q.Page < 1 || q.Limit < 1 {
		return 0
	}
	if q.Page-1 > maxSkip/q.Limit {
		return maxSkip
	}
	return (q.Page - 1) * q.Limit
}

// NewQuery validates list parameters (already parsed as integers by the
// caller). Values outside their ranges are errors, never clamped.
// Errors: Invalid with page, limit, reading_level, search or sort.
func NewQuery(page, limit int, genre, level, search, sort string) (Query, error) {
	fields := errs.FieldErrors{}
	if page < 1 {
		fields.Add("page", "must be at least 1")
	}
	if limit < 1 || limit > MaxLimit {
		fields.Add("limit", "must be between 1 and 100")
	}
	if level != "" && !user.ValidReadingLevel(level) {
		fields.Add("reading_level", "must be beginner, intermediate or advanced")
	}
	if len(genre) > 50 {
		fields.Add("genre", "must be at most 50 characters")
	}
	if len(search) > 200 {
		fields.Add("search", "must be at most 200 characters")
	}
	s := Sort(sort)
	switch s {
	case "":
		s = SortTitle
	case SortTitle, SortRatingDesc, SortPublishedDesc:
	default:
		fields.Add("sort", "must be title, -rating or -published_date")
	}
	if err := fields.Err(); err != nil {
		return Query{}, err
	}
	q := Query{Page: page, Limit: limit, Genre: genre, ReadingLevel: level, Sort: s}
	if search != "" {
		q.Terms = QueryTerms(search)
		if len(q.Terms) == 0 {
			return Query{}, errs.InvalidField("search", "must contain at least one letter or digit")
		}
		if len(q.Terms) > 10 {
			return Query{}, errs.InvalidField("search", "must have at most 10 words")
		}
	}
	return q, nil
}

// TotalPages is ceil(total/limit).
func TotalPages(total int64, limit int) int {
	if limit <= 0 {
		return 0
	}
	return int((total + int64(limit) - 1) / int64(limit))
}
