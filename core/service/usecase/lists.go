package usecase

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
)

// ListQuery selects one page of a library list (the public catalog, the
// staff's books, the students), optionally narrowed by a search whose every
// word must begin a word of the entry, ignoring case and accents.
type ListQuery struct {
	Page   int // from 1
	Limit  int // 1..MaxListLimit; clients that name none get DefaultListLimit
	Search string
}

// Library list page sizes and bounds.
const (
	DefaultListLimit = 50
	MaxListLimit     = 100
	maxListPage      = 100000
	maxSearchRunes   = 100
	maxSearchWords   = 10
)

// validate checks the page, limit and search, and returns the search's
// folded words (none for an empty search).
// Errors: Invalid with details.fields page, limit or search.
func (q ListQuery) Validate() ([]string, error) {
	fields := errs.FieldErrors{}
	if q.Page < 1 || q.Page > maxListPage {
		fields.Add("page", fmt.Sprintf("must be between 1 and %d", maxListPage))
	}
	if q.Limit < 1 || q.Limit > MaxListLimit {
		fields.Add("limit", fmt.Sprintf("must be between 1 and %d", MaxListLimit))
	}
	search := strings.TrimSpace(q.Search)
	var terms []string
	switch {
	case utf8.RuneCountInString(search) > maxSearchRunes:
		fields.Add("search", fmt.Sprintf("must be at most %d characters", maxSearchRunes))
	case search != "":
		terms = catalog.QueryTerms(search)
		if len(terms) == 0 {
			fields.Add("search", "must contain at least one letter or digit")
		} else if len(terms) > maxSearchWords {
			fields.Add("search", fmt.Sprintf("must have at most %d words", maxSearchWords))
		}
	}
	if err := fields.Err(); err != nil {
		return nil, err
	}
	return terms, nil
}

// offset is the number of entries before the page.
func (q ListQuery) Offset() int { return (q.Page - 1) * q.Limit }
