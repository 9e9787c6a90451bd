package sqliterepo

import (
	"context"
	"database/sql"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/ports"
)

// The record store's statements for these kinds: reading and counting
// the whole table, and inserting a record exactly as given where the
// repository's own writes upsert or skip what exists.
var (
	stmtRecItemsCount  = newWholeStmt("records.reading_list.count", `SELECT count(*) FROM reading_list`)
	stmtRecItemsRead   = newWholeStmt("records.reading_list.read", `SELECT `+listItemColumns+` FROM reading_list`)
	stmtRecItemsInsert = newStmt("records.reading_list.insert", `
INSERT INTO reading_list (`+listItemColumns+`)
VALUES (:id, :account_id, :book_id, :status, :priority, :added_at, :updated_at)`)
)

var _ = register(entity{
	repositories: func(d *DB, r *ports.Repositories) { r.ReadingLists = NewReadingLists(d) },
	records: map[ports.RecordKind]records{
		ports.KindReadingList: func(d *DB, k ports.RecordKind) recordKind {
			return recordsKind(d, k, stmtRecItemsCount, stmtRecItemsRead, scanListItem, func(ctx context.Context, tx *txn, it catalog.ListItem) error {
				_, err := d.exec(ctx, tx, stmtRecItemsInsert,
					sql.Named("id", it.ID), sql.Named("account_id", it.AccountID), sql.Named("book_id", it.BookID),
					sql.Named("status", string(it.Status)), sql.Named("priority", string(it.Priority)),
					sql.Named("added_at", millis(it.AddedAt)), sql.Named("updated_at", millis(it.UpdatedAt)))
				return err
			})
		},
	},
})

var _ ports.ReadingListRepository = (*ReadingLists)(nil)

// ReadingLists is the SQLite ports.ReadingListRepository: table
// reading_list, keyed by the item id, UNIQUE on (account_id, book_id).
type ReadingLists struct {
	db *DB
}

// NewReadingLists returns the reading-list store of db. It panics on nil, a
// wiring bug.
func NewReadingLists(db *DB) *ReadingLists {
	if db == nil {
		panic("sqliterepo: NewReadingLists: nil database")
	}
	return &ReadingLists{db: db}
}

const listItemColumns = `id, account_id, book_id, status, priority, added_at, updated_at`

var (
	// The UNIQUE (account_id, book_id) key decides which of racing Adds
	// creates the item; the others change nothing here.
	stmtItemInsert = newStmt("reading_list.insert", `
INSERT INTO reading_list (`+listItemColumns+`)
VALUES (:id, :account_id, :book_id, :status, :priority, :added_at, :updated_at)
ON CONFLICT (account_id, book_id) DO NOTHING`)
	stmtItemUpdate = newStmt("reading_list.update", `
UPDATE reading_list SET status = :status, priority = :priority, updated_at = :updated_at
WHERE account_id = :account_id AND book_id = :book_id
RETURNING `+listItemColumns)
	stmtItemGet = newStmt("reading_list.get", `
SELECT `+listItemColumns+` FROM reading_list WHERE account_id = :account_id AND book_id = :book_id`)
	stmtItemList = newStmt("reading_list.list", `
SELECT `+listItemColumns+` FROM reading_list WHERE account_id = :account_id ORDER BY added_at DESC, id DESC`)
	stmtItemListByStatus = newStmt("reading_list.list_by_status", `
SELECT `+listItemColumns+` FROM reading_list WHERE account_id = :account_id AND status = :status
ORDER BY added_at DESC, id DESC`)
	stmtItemRemove = newStmt("reading_list.remove", `
DELETE FROM reading_list WHERE account_id = :account_id AND book_id = :book_id`)
	stmtItemDeleteByAccount = newStmt("reading_list.delete_by_account", `
DELETE FROM reading_list WHERE account_id = :account_id`)
	stmtReadersByBook = newStmt("reading_list.readers_by_book", `
SELECT book_id, count(*) FROM reading_list WHERE book_id IN (SELECT value FROM json_each(:book_ids)) GROUP BY book_id`)
)

func scanListItem(s scanner) (catalog.ListItem, error) {
	var (
		it               catalog.ListItem
		status, priority string
		added, updated   int64
	)
	if err := s.Scan(&it.ID, &it.AccountID, &it.BookID, &status, &priority, &added, &updated); err != nil {
		return catalog.ListItem{}, err
	}
	it.Status, it.Priority = catalog.ListStatus(status), catalog.Priority(priority)
	it.AddedAt, it.UpdatedAt = fromMillis(added), fromMillis(updated)
	return it, nil
}

// Add implements ports.ReadingListRepository in one write transaction: an
// insert that the UNIQUE key turns into nothing when the account already
// lists the book, and then an update of that item's status, priority and
// updated_at. Transactions are serialised, so of racing Adds exactly one
// creates the item and the others update it (last writer wins). An item id
// held by another item is a UNIQUE violation: ids are generated, so that is
// a bug and Internal.
func (r *ReadingLists) Add(ctx context.Context, item catalog.ListItem) (catalog.ListItem, bool, error) {
	const op = "add the reading-list item"
	var (
		stored  catalog.ListItem
		created bool
	)
	err := r.db.inTx(ctx, op, func(tx *txn) error {
		res, err := r.db.exec(ctx, tx, stmtItemInsert,
			sql.Named("id", item.ID), sql.Named("account_id", item.AccountID), sql.Named("book_id", item.BookID),
			sql.Named("status", string(item.Status)), sql.Named("priority", string(item.Priority)),
			sql.Named("added_at", millis(item.AddedAt)), sql.Named("updated_at", millis(item.UpdatedAt)))
		if err != nil {
			return mapErr(err, op, nil, nil)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return mapErr(err, op, nil, nil)
		}
		if n == 1 {
			stored, created = item, true
			return nil
		}
		stored, err = scanListItem(r.db.queryRow(ctx, tx, stmtItemUpdate,
			sql.Named("status", string(item.Status)), sql.Named("priority", string(item.Priority)),
			sql.Named("updated_at", millis(item.UpdatedAt)),
			sql.Named("account_id", item.AccountID), sql.Named("book_id", item.BookID)))
		return mapErr(err, op, nil, nil)
	})
	if err != nil {
		return catalog.ListItem{}, false, err
	}
	return stored, created, nil
}

// Get implements ports.ReadingListRepository.
func (r *ReadingLists) Get(ctx context.Context, accountID, bookID string) (catalog.ListItem, error) {
	return readRow(ctx, r.db, "read the reading-list item", catalog.ErrListItemNotFound, stmtItemGet, scanListItem, sql.Named("account_id", accountID), sql.Named("book_id", bookID))
}

// List implements ports.ReadingListRepository: newest first, by added_at
// and then id, both descending, walking the (account_id, added_at, id)
// index backwards.
func (r *ReadingLists) List(ctx context.Context, accountID string, status catalog.ListStatus) ([]catalog.ListItem, error) {
	s, args := stmtItemList, []any{sql.Named("account_id", accountID)}
	if status != "" {
		s, args = stmtItemListByStatus, append(args, sql.Named("status", string(status)))
	}
	return queryAll(ctx, r.db, r.db.read, "list the reading list", s, scanListItem, args...)
}

// Remove implements ports.ReadingListRepository.
func (r *ReadingLists) Remove(ctx context.Context, accountID, bookID string) error {
	res, err := r.db.exec(ctx, r.db.write, stmtItemRemove, sql.Named("account_id", accountID), sql.Named("book_id", bookID))
	if err != nil {
		return mapErr(err, "remove the reading-list item", nil, nil)
	}
	return notFoundIfNone(res, "remove the reading-list item", catalog.ErrListItemNotFound)
}

// DeleteByAccount implements ports.ReadingListRepository.
func (r *ReadingLists) DeleteByAccount(ctx context.Context, accountID string) error {
	return r.db.execWrite(ctx, "delete the account's reading list", nil, stmtItemDeleteByAccount, sql.Named("account_id", accountID))
}

// ReadersByBook implements ports.ReadingListRepository with one statement
// on the book_id index. No ids is no statement.
func (r *ReadingLists) ReadersByBook(ctx context.Context, bookIDs []string) (map[string]int, error) {
	out := map[string]int{}
	if len(bookIDs) == 0 {
		return out, nil
	}
	rows, err := r.db.query(ctx, r.db.read, stmtReadersByBook, sql.Named("book_ids", jsonArray(bookIDs)))
	if err != nil {
		return nil, mapErr(err, "count the readers", nil, nil)
	}
	type readers struct {
		book string
		n    int
	}
	counts, err := scanAll(rows, func(s scanner) (readers, error) {
		var c readers
		err := s.Scan(&c.book, &c.n)
		return c, err
	})
	if err != nil {
		return nil, mapErr(err, "count the readers", nil, nil)
	}
	for _, c := range counts {
		out[c.book] = c.n
	}
	return out, nil
}
