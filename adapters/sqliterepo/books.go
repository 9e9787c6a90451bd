package sqliterepo

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

// The record store's statements for these kinds: reading and counting
// the whole table, and inserting a record exactly as given where the
// repository's own writes upsert or skip what exists.
var (
	// A book with the texts of its chapters, in the order ChapterTexts
	// gives them (one correlated lookup on chapter_texts_by_book per book).
	stmtRecBooksRead = newWholeStmt("records.books.read", `
SELECT `+bookColumns+`,
	(SELECT json_group_array(json_object('chapter_id', t.chapter_id, 'book_id', t.book_id, 'position', t.position,
			'text', t.text) ORDER BY t.position, t.chapter_id)
		FROM chapter_texts AS t WHERE t.book_id = b.id)
FROM books AS b`)
)

var _ = register(entity{
	repositories: func(d *DB, r *ports.Repositories) { r.Books = NewBooks(d) },
	records: map[ports.RecordKind]records{
		ports.KindBooks: func(d *DB, k ports.RecordKind) recordKind {
			books := NewBooks(d)
			return recordsKind(d, k, stmtBookCount, stmtRecBooksRead, scanBookRecord, func(ctx context.Context, tx *txn, rec ports.BookRecord) error {
				pk, err := books.insertRow(ctx, tx, rec.Book)
				if err != nil {
					return err
				}
				return books.writeParts(ctx, tx, pk, rec.Book, rec.Texts)
			})
		},
	},
})

var _ ports.BookRepository = (*Books)(nil)

// Books is the SQLite ports.BookRepository: table books (keyed by an
// integer pk, with the book id UNIQUE), its chapters in book_chapters, the
// chapter texts in chapter_texts, and the search index books_fts. Every
// write is one transaction, so a book, its chapters, its texts and its
// search row appear and go together (stronger than the port asks: no
// unreachable texts are ever left behind). Every method is a fixed number
// of statements whatever the catalog's size; List is one for the page and
// one for the total.
type Books struct {
	db *DB
}

// NewBooks returns the book store of db. It panics on nil, a wiring bug.
func NewBooks(db *DB) *Books {
	if db == nil {
		panic("sqliterepo: NewBooks: nil database")
	}
	return &Books{db: db}
}

// bookColumns reads a book of books AS b, its chapters as one JSON array in
// order (one correlated lookup on the chapters' primary key per book).
const bookColumns = `b.id, b.title, b.author, b.cover, b.genre, b.reading_level, b.pages, b.description, b.rating,
	b.published_date, b.isbn, b.language, b.access, b.search_terms, b.sort_title, b.word_count, b.created_at, b.updated_at,
	(SELECT json_group_array(json_object('id', c.id, 'title', c.title, 'page_start', c.page_start,
			'page_end', c.page_end, 'word_count', c.word_count) ORDER BY c.position)
		FROM book_chapters AS c WHERE c.book_pk = b.pk)`

var (
	stmtBookInsert = newStmt("books.insert", `
INSERT INTO books (id, title, author, cover, genre, reading_level, pages, description, rating, published_date,
	isbn, language, access, search_terms, sort_title, word_count, created_at, updated_at, isbn13, work_key)
VALUES (:id, :title, :author, :cover, :genre, :reading_level, :pages, :description, :rating, :published_date,
	:isbn, :language, :access, :search_terms, :sort_title, :word_count, :created_at, :updated_at, :isbn13, :work_key)
RETURNING pk`)
	stmtBookUpdate = newStmt("books.update", `
UPDATE books SET title = :title, author = :author, cover = :cover, genre = :genre, reading_level = :reading_level,
	pages = :pages, description = :description, rating = :rating, published_date = :published_date, isbn = :isbn,
	language = :language, access = :access, search_terms = :search_terms, sort_title = :sort_title,
	word_count = :word_count, created_at = :created_at, updated_at = :updated_at, isbn13 = :isbn13, work_key = :work_key
WHERE id = :id
RETURNING pk`)
	// Deleting a book deletes its chapters and texts (ON DELETE CASCADE).
	stmtBookDelete  = newStmt("books.delete", `DELETE FROM books WHERE id = :id RETURNING pk`)
	stmtBookGet     = newStmt("books.get", `SELECT `+bookColumns+` FROM books AS b WHERE b.id = :id`)
	stmtBookGetMany = newStmt("books.get_many", `
SELECT `+bookColumns+` FROM books AS b WHERE b.id IN (SELECT value FROM json_each(:ids))`)
	stmtBookCount = newStmt("books.count", `SELECT n FROM counters WHERE name = 'books'`)

	stmtChaptersDelete = newStmt("book_chapters.delete", `DELETE FROM book_chapters WHERE book_pk = :pk`)
	stmtChaptersInsert = newStmt("book_chapters.insert", `
INSERT INTO book_chapters (book_pk, position, id, title, page_start, page_end, word_count)
SELECT :pk, key, value->>'id', value->>'title', value->>'page_start', value->>'page_end', value->>'word_count'
FROM json_each(:chapters)`)

	stmtTextsInsert = newStmt("chapter_texts.insert", `
INSERT INTO chapter_texts (chapter_id, book_id, position, text)
SELECT value->>'chapter_id', value->>'book_id', value->>'position', value->>'text' FROM json_each(:texts)`)
	stmtTextsDeleteByBook = newStmt("chapter_texts.delete_by_book", `DELETE FROM chapter_texts WHERE book_id = :book_id`)
	stmtTextGet           = newStmt("chapter_texts.get", `
SELECT chapter_id, book_id, position, text FROM chapter_texts WHERE chapter_id = :chapter_id AND book_id = :book_id`)
	stmtTextsByBook = newStmt("chapter_texts.by_book", `
SELECT chapter_id, book_id, position, text FROM chapter_texts WHERE book_id = :book_id ORDER BY position, chapter_id`)
	stmtTextsByID = newStmt("chapter_texts.by_id", `
SELECT chapter_id, book_id, position, text FROM chapter_texts
WHERE chapter_id IN (SELECT value FROM json_each(:chapter_ids))`)

	// Candidates: the best rated of each genre, author and level asked
	// for, each read in rating order from its own index and cut at the
	// limit (the best of the union is among the best of its parts), then
	// the best of their union; the books are read for the chosen pks only.
	stmtBookCandidates = newStmt("books.candidates", `
SELECT `+bookColumns+` FROM (
	SELECT c.pk FROM books AS c
	WHERE c.pk IN (
			SELECT x.pk FROM json_each(:genres) AS g CROSS JOIN books AS x
			WHERE x.pk IN (SELECT pk FROM books INDEXED BY books_by_genre_rating
				WHERE genre = g.value AND id NOT IN (SELECT value FROM json_each(:exclude))
				ORDER BY rating DESC, id LIMIT :limit)
			UNION ALL
			SELECT x.pk FROM json_each(:authors) AS a CROSS JOIN books AS x
			WHERE x.pk IN (SELECT pk FROM books INDEXED BY books_by_author_rating
				WHERE author = a.value AND id NOT IN (SELECT value FROM json_each(:exclude))
				ORDER BY rating DESC, id LIMIT :limit)
			UNION ALL
			SELECT pk FROM (SELECT pk FROM books INDEXED BY books_by_level_rating
				WHERE reading_level = :level AND id NOT IN (SELECT value FROM json_each(:exclude))
				ORDER BY rating DESC, id LIMIT :limit))
	ORDER BY c.rating DESC, c.id
	LIMIT :limit) AS page
JOIN books AS b ON b.pk = page.pk
ORDER BY b.rating DESC, b.id`)
)

// chapterJSON is a chapter in the JSON that bookColumns reads and
// stmtChaptersInsert writes.
type chapterJSON struct {
	ID        string `json:"id"`
	Title     string `json:"title"`
	PageStart int    `json:"page_start"`
	PageEnd   int    `json:"page_end"`
	WordCount int    `json:"word_count"`
}

// textJSON is a chapter text in the JSON that stmtTextsInsert reads.
type textJSON struct {
	ChapterID string `json:"chapter_id"`
	BookID    string `json:"book_id"`
	Position  int    `json:"position"`
	Text      string `json:"text"`
}

// bookArgs are the named parameters of a book row, with the keys that
// AppLinks looks it up by.
func bookArgs(b catalog.Book) []any {
	terms := b.SearchTerms
	if terms == nil {
		terms = []string{}
	}
	return []any{
		sql.Named("id", b.ID),
		sql.Named("title", b.Title),
		sql.Named("author", b.Author),
		sql.Named("cover", b.Cover),
		sql.Named("genre", b.Genre),
		sql.Named("reading_level", b.ReadingLevel),
		sql.Named("pages", b.Pages),
		sql.Named("description", b.Description),
		sql.Named("rating", b.Rating),
		sql.Named("published_date", nullString(b.PublishedDate)),
		sql.Named("isbn", b.ISBN),
		sql.Named("language", b.Language),
		sql.Named("access", string(b.Access)),
		sql.Named("search_terms", jsonArray(terms)),
		sql.Named("sort_title", b.SortTitle),
		sql.Named("word_count", b.WordCount),
		sql.Named("created_at", millis(b.CreatedAt)),
		sql.Named("updated_at", millis(b.UpdatedAt)),
		sql.Named("isbn13", library.ISBN13(b.ISBN)),
		sql.Named("work_key", catalog.WorkKey(b.Title, b.Author)),
	}
}

func scanBook(s scanner) (catalog.Book, error) {
	var (
		b                      catalog.Book
		access, terms, chapter string
		published              sql.NullString
		created, updated       int64
	)
	err := s.Scan(&b.ID, &b.Title, &b.Author, &b.Cover, &b.Genre, &b.ReadingLevel, &b.Pages, &b.Description, &b.Rating,
		&published, &b.ISBN, &b.Language, &access, &terms, &b.SortTitle, &b.WordCount, &created, &updated, &chapter)
	if err != nil {
		return catalog.Book{}, err
	}
	b.PublishedDate = published.String
	b.Access = catalog.Access(access)
	b.CreatedAt, b.UpdatedAt = fromMillis(created), fromMillis(updated)
	if err := json.Unmarshal([]byte(terms), &b.SearchTerms); err != nil {
		return catalog.Book{}, fmt.Errorf("book %s: search terms: %w", b.ID, err)
	}
	if len(b.SearchTerms) == 0 {
		b.SearchTerms = nil
	}
	var chapters []chapterJSON
	if err := json.Unmarshal([]byte(chapter), &chapters); err != nil {
		return catalog.Book{}, fmt.Errorf("book %s: chapters: %w", b.ID, err)
	}
	for _, c := range chapters {
		b.Chapters = append(b.Chapters, catalog.Chapter(c))
	}
	return b, nil
}

func scanText(s scanner) (catalog.ChapterText, error) {
	var t catalog.ChapterText
	err := s.Scan(&t.ChapterID, &t.BookID, &t.Position, &t.Text)
	return t, err
}

// Create implements ports.BookRepository in one transaction: the book, its
// chapters, its texts and its search row. A taken book id is Conflict; a
// text whose chapter id another book holds fails the whole call (ids are
// generated, so that is a bug) and stores nothing.
func (r *Books) Create(ctx context.Context, b catalog.Book, texts []catalog.ChapterText) error {
	const op = "create the book"
	return r.db.inTx(ctx, op, func(tx *txn) error {
		pk, err := r.insertRow(ctx, tx, b)
		if err != nil {
			return mapErr(err, op, nil, catalog.ErrBookExists)
		}
		return r.writeParts(ctx, tx, pk, b, texts)
	})
}

// insertRow stores the row of b in tx and returns its pk. Its error is the
// driver's, for the caller to map.
func (r *Books) insertRow(ctx context.Context, tx *txn, b catalog.Book) (int64, error) {
	var pk int64
	err := r.db.queryRow(ctx, tx, stmtBookInsert, bookArgs(b)...).Scan(&pk)
	return pk, err
}

// writeParts stores the chapters, the texts and the search row of the book
// b stored at pk, in tx.
func (r *Books) writeParts(ctx context.Context, tx *txn, pk int64, b catalog.Book, texts []catalog.ChapterText) error {
	if err := r.writeChapters(ctx, tx, pk, b.Chapters); err != nil {
		return err
	}
	if err := r.writeTexts(ctx, tx, texts); err != nil {
		return err
	}
	return r.index(ctx, tx, stmtSearchInsert, pk, b)
}

// writeChapters stores the chapters of the book at pk, replacing none: the
// caller deletes the old ones first. No chapters is no statement.
func (r *Books) writeChapters(ctx context.Context, tx *txn, pk int64, chapters []catalog.Chapter) error {
	if len(chapters) == 0 {
		return nil
	}
	rows := make([]chapterJSON, len(chapters))
	for i, c := range chapters {
		rows[i] = chapterJSON(c)
	}
	_, err := r.db.exec(ctx, tx, stmtChaptersInsert, sql.Named("pk", pk), sql.Named("chapters", jsonArray(rows)))
	return mapErr(err, "store the chapters", nil, nil)
}

// writeTexts stores texts with one statement. A chapter id held by another
// text (of another book: the caller removed this book's) is a UNIQUE
// violation, which is Internal: chapter ids are generated. No texts is no
// statement.
func (r *Books) writeTexts(ctx context.Context, tx *txn, texts []catalog.ChapterText) error {
	if len(texts) == 0 {
		return nil
	}
	rows := make([]textJSON, len(texts))
	for i, t := range texts {
		rows[i] = textJSON(t)
	}
	_, err := r.db.exec(ctx, tx, stmtTextsInsert, sql.Named("texts", jsonArray(rows)))
	return mapErr(err, "store the chapter texts", nil, nil)
}

// Get implements ports.BookRepository.
func (r *Books) Get(ctx context.Context, id string) (catalog.Book, error) {
	return readRow(ctx, r.db, "read the book", catalog.ErrBookNotFound, stmtBookGet, scanBook, sql.Named("id", id))
}

// GetMany implements ports.BookRepository with one statement. No ids is no
// statement.
func (r *Books) GetMany(ctx context.Context, ids []string) ([]catalog.Book, error) {
	if len(ids) == 0 {
		return []catalog.Book{}, nil
	}
	return r.books(ctx, r.db.read, "read the books", stmtBookGetMany, sql.Named("ids", jsonArray(ids)))
}

// books runs s on q and reads every book it returns.
func (r *Books) books(ctx context.Context, q target, op string, s *stmt, args ...any) ([]catalog.Book, error) {
	return queryAll(ctx, r.db, q, op, s, scanBook, args...)
}

// Update implements ports.BookRepository in one transaction: the book, its
// chapters (all replaced), its search row, and, when texts is not nil, its
// texts (all replaced). A text whose chapter id another book holds fails
// the whole call and changes nothing.
func (r *Books) Update(ctx context.Context, b catalog.Book, texts []catalog.ChapterText) error {
	const op = "update the book"
	return r.db.inTx(ctx, op, func(tx *txn) error {
		var pk int64
		if err := r.db.queryRow(ctx, tx, stmtBookUpdate, bookArgs(b)...).Scan(&pk); err != nil {
			return mapErr(err, op, catalog.ErrBookNotFound, nil)
		}
		if _, err := r.db.exec(ctx, tx, stmtChaptersDelete, sql.Named("pk", pk)); err != nil {
			return mapErr(err, "replace the chapters", nil, nil)
		}
		if err := r.writeChapters(ctx, tx, pk, b.Chapters); err != nil {
			return err
		}
		if err := r.index(ctx, tx, stmtSearchUpdate, pk, b); err != nil {
			return err
		}
		if texts == nil {
			return nil
		}
		if _, err := r.db.exec(ctx, tx, stmtTextsDeleteByBook, sql.Named("book_id", b.ID)); err != nil {
			return mapErr(err, "replace the chapter texts", nil, nil)
		}
		return r.writeTexts(ctx, tx, texts)
	})
}

// Delete implements ports.BookRepository in one transaction: the book (its
// chapters and texts go with it) and its search row.
func (r *Books) Delete(ctx context.Context, id string) error {
	const op = "delete the book"
	return r.db.inTx(ctx, op, func(tx *txn) error {
		var pk int64
		if err := r.db.queryRow(ctx, tx, stmtBookDelete, sql.Named("id", id)).Scan(&pk); err != nil {
			return mapErr(err, op, catalog.ErrBookNotFound, nil)
		}
		_, err := r.db.exec(ctx, tx, stmtSearchDelete, sql.Named("pk", pk))
		return mapErr(err, "remove the book from the search index", nil, nil)
	})
}

// ChapterText implements ports.BookRepository. The statement names the book
// too, so another book's chapter is not found.
func (r *Books) ChapterText(ctx context.Context, bookID, chapterID string) (catalog.ChapterText, error) {
	return readRow(ctx, r.db, "read the chapter text", catalog.ErrChapterNotFound, stmtTextGet, scanText, sql.Named("chapter_id", chapterID), sql.Named("book_id", bookID))
}

// ChapterTexts implements ports.BookRepository, in the order of the
// (book_id, position, chapter_id) index.
func (r *Books) ChapterTexts(ctx context.Context, bookID string) ([]catalog.ChapterText, error) {
	return r.texts(ctx, stmtTextsByBook, sql.Named("book_id", bookID))
}

// ChapterTextsByID implements ports.BookRepository with one statement. No
// ids is no statement.
func (r *Books) ChapterTextsByID(ctx context.Context, chapterIDs []string) ([]catalog.ChapterText, error) {
	if len(chapterIDs) == 0 {
		return []catalog.ChapterText{}, nil
	}
	return r.texts(ctx, stmtTextsByID, sql.Named("chapter_ids", jsonArray(chapterIDs)))
}

func (r *Books) texts(ctx context.Context, s *stmt, args ...any) ([]catalog.ChapterText, error) {
	return queryAll(ctx, r.db, r.db.read, "read the chapter texts", s, scanText, args...)
}

// Candidates implements ports.BookRepository with one statement. A query
// without genres, authors or level matches nothing, and a limit below 1
// asks for nothing; neither runs a statement.
func (r *Books) Candidates(ctx context.Context, q catalog.CandidateQuery) ([]catalog.Book, error) {
	if q.Limit < 1 || (len(q.Genres) == 0 && len(q.Authors) == 0 && q.Level == "") {
		return []catalog.Book{}, nil
	}
	var level any // NULL matches no book: no level asked
	if q.Level != "" {
		level = q.Level
	}
	return r.books(ctx, r.db.read, "find candidate books", stmtBookCandidates,
		sql.Named("genres", jsonArray(q.Genres)), sql.Named("authors", jsonArray(q.Authors)),
		sql.Named("level", level), sql.Named("exclude", jsonArray(q.Exclude)), sql.Named("limit", q.Limit))
}

// Count implements ports.BookRepository from the counter the books triggers
// keep.
func (r *Books) Count(ctx context.Context) (int64, error) {
	var n int64
	if err := r.db.queryRow(ctx, r.db.read, stmtBookCount).Scan(&n); err != nil {
		return 0, mapErr(err, "count books", nil, nil)
	}
	return n, nil
}
