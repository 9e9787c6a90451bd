package sqliterepo

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"fmt"
	"strings"

	"modernc.org/sqlite"

	"github.com/readinglibrary/service/core/catalog"
)

// The search index: books_fts holds, per book, the catalog's folded words
// of its title and of its author (catalog.Words, joined by spaces), and a
// search matches each query term as the prefix of a word. The catalog folds
// (case, accents of Latin, Greek and Cyrillic letters, word boundaries)
// before SQLite sees anything, and the index's tokenizer only splits at
// spaces, so a term matches exactly when it is a prefix of one of the
// book's folded words: when catalog.SearchTerms of the book holds it (terms
// are cut to catalog.MaxPrefixLength letters, stored prefixes go up to it).
// That is what the MongoDB adapter's search_terms index finds;
// TestSearchMatchesCatalogTerms checks it over a corpus of many scripts.
//
// The tokenizer is ascii, not unicode61 remove_diacritics 2: over the
// folded words, unicode61 would add a second folding that disagrees with
// the catalog's. Of the code points a folded word can hold, it tokenizes
// 1,714 differently: every combining mark the catalog keeps (1,283 Mn
// after letters other than Latin, Greek and Cyrillic ones, 329 Mc and 12
// Me anywhere: Devanagari vowel signs, Hebrew points, Arabic harakat) is a
// separator to it, 80 letters that fold into a letter and such a mark
// (Hebrew presentation forms) split likewise, and it
// case-folds 10 letters that catalog.Fold keeps (ϐ ϑ ϕ ϖ ϰ ϱ ϵ µ ſ ẛ).
// With categories 'L* N* Co M*' the marks stay in their words, but
// remove_diacritics still drops 29 of them after such letters and the 10
// letters still fold. ascii splits at spaces and ASCII punctuation only
// and lowercases only ASCII, which the folded words already are, so each
// folded word is exactly one token. TestTokenizerKeepsFoldedWords holds
// that, and counts the others' differences with
// SQLITEREPO_COMPARE_TOKENIZERS=1.

var (
	stmtSearchInsert = newStmt("books_fts.insert", `
INSERT INTO books_fts (rowid, title, author) VALUES (:pk, :title, :author)`)
	stmtSearchUpdate = newStmt("books_fts.update", `
UPDATE books_fts SET title = :title, author = :author WHERE rowid = :pk`)
	stmtSearchDelete = newStmt("books_fts.delete", `DELETE FROM books_fts WHERE rowid = :pk`)
)

// searchWords is the indexed text of s: its folded words.
func searchWords(s string) string { return strings.Join(catalog.Words(s), " ") }

// index writes the search row of the book at pk with s (insert or update).
func (r *Books) index(ctx context.Context, tx *txn, s *stmt, pk int64, b catalog.Book) error {
	_, err := r.db.exec(ctx, tx, s, sql.Named("pk", pk),
		sql.Named("title", searchWords(b.Title)), sql.Named("author", searchWords(b.Author)))
	return mapErr(err, "index the book for search", nil, nil)
}

// ftsMatch is the FTS5 query of terms: every term, as a prefix. Each term
// is quoted as an FTS string (a " inside doubled), so that no user input
// can ever be read as FTS syntax (AND, OR, NOT, NEAR, column filters,
// parentheses, a bare *).
func ftsMatch(terms []string) string {
	var b strings.Builder
	for i, t := range terms {
		if i > 0 {
			b.WriteString(" AND ")
		}
		b.WriteByte('"')
		b.WriteString(strings.ReplaceAll(t, `"`, `""`))
		b.WriteString(`"*`)
	}
	return b.String()
}

// listShape is what decides a List statement: which filters are present,
// and the order.
type listShape struct {
	terms, genre, level bool
	sort                catalog.Sort // SortTitle, SortRatingDesc or SortPublishedDesc
}

// List statements, one per shape (static SQL whose plans the query-plan
// test can check), registered at initialisation: the page of each shape,
// and the count of each filter set. The count without any filter is the
// books counter.
var (
	listPages  = map[listShape]*stmt{}
	listCounts = map[listShape]*stmt{} // sort unset
)

func init() {
	for _, terms := range []bool{false, true} {
		for _, genre := range []bool{false, true} {
			for _, level := range []bool{false, true} {
				filter := listShape{terms: terms, genre: genre, level: level}
				switch {
				case filter == listShape{terms: true}:
					// Counts the index's rows alone: one per book.
					listCounts[filter] = newStmt("books.count"+filter.suffix(),
						`SELECT count(*) FROM books_fts WHERE books_fts MATCH :match`)
				case terms || genre || level:
					listCounts[filter] = newStmt("books.count"+filter.suffix(),
						`SELECT count(*) FROM books AS b`+filter.where())
				}
				for _, sort := range []catalog.Sort{catalog.SortTitle, catalog.SortRatingDesc, catalog.SortPublishedDesc} {
					shape := filter
					shape.sort = sort
					// The page's pks are chosen first, from the indexes alone
					// where they cover the filter and the order, and only
					// then are the page's books read: a sort would otherwise
					// carry every matching book, chapters and all.
					sql := `SELECT ` + bookColumns + ` FROM (SELECT b.pk FROM books AS b` + shape.where() +
						` ORDER BY ` + shape.orderBy() + ` LIMIT :limit OFFSET :offset) AS page` +
						` JOIN books AS b ON b.pk = page.pk ORDER BY ` + shape.orderBy()
					name := "books.list" + shape.suffix()
					if terms || genre || level {
						listPages[shape] = newStmt(name, sql)
					} else {
						listPages[shape] = newWalkingStmt(name, sql)
					}
				}
			}
		}
	}
}

// suffix names the shape in its statements' names, e.g. "[terms,genre,-rating]".
func (s listShape) suffix() string {
	var parts []string
	if s.terms {
		parts = append(parts, "terms")
	}
	if s.genre {
		parts = append(parts, "genre")
	}
	if s.level {
		parts = append(parts, "level")
	}
	if s.sort != "" {
		parts = append(parts, string(s.sort))
	}
	if len(parts) == 0 {
		return ""
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// where is the filter of s. With search terms the search index leads: its
// matches are looked up by pk and then filtered; a unary + keeps SQLite
// from walking a genre or level index instead and probing the matches for
// each of its books, which costs the whole genre for a rare word.
func (s listShape) where() string {
	var conds []string
	col := `b.`
	if s.terms {
		conds = append(conds, `b.pk IN (SELECT rowid FROM books_fts WHERE books_fts MATCH :match)`)
		col = `+b.`
	}
	if s.genre {
		conds = append(conds, col+`genre = :genre`)
	}
	if s.level {
		conds = append(conds, col+`reading_level = :level`)
	}
	if len(conds) == 0 {
		return ""
	}
	return ` WHERE ` + strings.Join(conds, ` AND `)
}

// orderBy is the order of s; every order ends with sort_title and id, as
// the indexes do.
func (s listShape) orderBy() string {
	switch s.sort {
	case catalog.SortRatingDesc:
		return `b.rating DESC, b.sort_title, b.id`
	case catalog.SortPublishedDesc:
		return `b.published_date DESC, b.sort_title, b.id`
	}
	return `b.sort_title, b.id`
}

// List implements ports.BookRepository: one statement for the page and one
// for the total, with the same filter, in one read transaction so both see
// the same catalog. The total comes from the search index, an index range,
// or the books counter, never from a scan. A limit of 0 or less means no
// limit and a negative skip none; an unknown order is the title order.
func (r *Books) List(ctx context.Context, q catalog.Query) ([]catalog.Book, int64, error) {
	shape := listShape{terms: len(q.Terms) > 0, genre: q.Genre != "", level: q.ReadingLevel != "", sort: q.Sort}
	switch shape.sort {
	case catalog.SortRatingDesc, catalog.SortPublishedDesc:
	default:
		shape.sort = catalog.SortTitle
	}
	var args []any
	if shape.terms {
		args = append(args, sql.Named("match", ftsMatch(q.Terms)))
	}
	if shape.genre {
		args = append(args, sql.Named("genre", q.Genre))
	}
	if shape.level {
		args = append(args, sql.Named("level", q.ReadingLevel))
	}
	limit := int64(-1) // SQLite: no limit
	if q.Limit > 0 {
		limit = int64(q.Limit)
	}
	count := stmtBookCount
	if s, ok := listCounts[listShape{terms: shape.terms, genre: shape.genre, level: shape.level}]; ok {
		count = s
	}
	var (
		page  []catalog.Book
		total int64
	)
	err := r.db.readTx(ctx, "list books", func(tx *txn) error {
		var err error
		page, err = r.books(ctx, tx, "list books", listPages[shape],
			append(args, sql.Named("limit", limit), sql.Named("offset", max(q.Skip(), 0)))...)
		if err != nil {
			return err
		}
		return mapErr(r.db.queryRow(ctx, tx, count, args...).Scan(&total), "count books", nil, nil)
	})
	if err != nil {
		return nil, 0, err
	}
	return page, total, nil
}

// The library's search indexes (library_books_fts, students_fts) hold, per
// record, its folded words, each prefixed with the scope of its school;
// a term is searched as the prefix of a scoped word. So a search reads the
// index entries of its own school only, however many schools share the
// file, and its total is counted in the index. The folding and the
// matching are those of books_fts: a term matches exactly when it is in
// catalog.SearchTerms of the record's text, as in the MongoDB store.

// schoolScope is the prefix of the indexed words of a school: "s", the
// school id in lowercase hex, "x". Hex digits and x are ASCII letters and
// digits, so the ascii tokenizer keeps a scope and its word in one token,
// and x, not a hex digit, ends the scope: no school's scope is the prefix
// of another's scoped word.
func schoolScope(schoolID string) string { return "s" + hex.EncodeToString([]byte(schoolID)) + "x" }

// scopedWords is the indexed text of text in a school: its folded words,
// each prefixed with the school's scope.
func scopedWords(schoolID, text string) string {
	scope := schoolScope(schoolID)
	words := catalog.Words(text)
	for i, w := range words {
		words[i] = scope + w
	}
	return strings.Join(words, " ")
}

// scopedMatch is the FTS5 query of terms in a school: every term, prefixed
// with the school's scope, as a prefix (quoted as ftsMatch quotes).
func scopedMatch(schoolID string, terms []string) string {
	scope := schoolScope(schoolID)
	scoped := make([]string, len(terms))
	for i, t := range terms {
		scoped[i] = scope + t
	}
	return ftsMatch(scoped)
}

// scopedWordsFunc is scopedWords as the SQL function
// libraryd_scoped_words(school_id, text), for the migrations that index
// records already stored (0002). It is registered with the driver for
// every connection of the process; the schema never names it (no trigger,
// view, index or default does), so other SQLite tools can still use the
// file.
const scopedWordsFunc = "libraryd_scoped_words"

func init() {
	sqlite.MustRegisterDeterministicScalarFunction(scopedWordsFunc, 2,
		func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			school, ok1 := args[0].(string)
			text, ok2 := args[1].(string)
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("%s: want two texts, got %T and %T", scopedWordsFunc, args[0], args[1])
			}
			return scopedWords(school, text), nil
		})
}
