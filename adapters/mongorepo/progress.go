package mongorepo

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/ports"
)

const (
	colProgress        = "progress"
	colReadingSessions = "reading_sessions"
)

var _ = register(entity{
	repositories: func(db *mongo.Database, r *ports.Repositories) { r.Progress = NewProgress(db) },
	collections: []collection{
		{colProgress, nil},
		{colReadingSessions, []mongo.IndexModel{
			{Keys: bson.D{{Key: "account_id", Value: 1}, {Key: "at", Value: 1}}},
			{Keys: bson.D{{Key: "account_id", Value: 1}, {Key: "book_id", Value: 1}}},
		}},
	},
	records: map[ports.RecordKind]records{
		ports.KindProgress: plainRecords(colProgress, toProgressDoc, progressDoc.toProgress),
		ports.KindSessions: plainRecords(colReadingSessions, toSessionDoc, sessionDoc.toSession),
	},
})

var _ ports.ProgressRepository = (*Progress)(nil)

// Progress is the MongoDB ports.ProgressRepository: collection progress,
// keyed by account id + "|" + book id, and collection reading_sessions,
// keyed by the session id. Sessions are only ever inserted and totals are
// summed over them: FerretDB 1.24 loses concurrent $inc updates (it applies
// them as unguarded read-modify-writes), inserts it never loses.
type Progress struct {
	progress *mongo.Collection
	sessions *mongo.Collection
}

// NewProgress returns the progress store of db. It panics on nil, a wiring
// bug.
func NewProgress(db *mongo.Database) *Progress {
	mustDB(db, "NewProgress")
	return &Progress{progress: db.Collection(colProgress), sessions: db.Collection(colReadingSessions)}
}

type progressDoc struct {
	ID            string    `bson:"_id"` // progressID(account, book)
	AccountID     string    `bson:"account_id"`
	BookID        string    `bson:"book_id"`
	PageNumber    int       `bson:"page_number"`
	Percentage    float64   `bson:"percentage"`
	MaxPage       int       `bson:"max_page"`
	MaxPercentage float64   `bson:"max_percentage"`
	LastRead      time.Time `bson:"last_read"`
	CompletedAt   time.Time `bson:"completed_at,omitempty"` // absent until finished
}

type sessionDoc struct {
	ID            string    `bson:"_id"`
	AccountID     string    `bson:"account_id"`
	BookID        string    `bson:"book_id"`
	At            time.Time `bson:"at"`
	LocalDay      string    `bson:"local_day"`
	Seconds       int       `bson:"seconds"`
	FromPage      int       `bson:"from_page"`
	ToPage        int       `bson:"to_page"`
	PagesAdvanced int       `bson:"pages_advanced"`
	WordsRead     int       `bson:"words_read"`
	Completed     bool      `bson:"completed"`
}

// progressID is the _id of an account's progress on a book.
func progressID(accountID, bookID string) string { return accountID + "|" + bookID }

func toProgressDoc(p catalog.Progress) progressDoc {
	return progressDoc{
		ID:            progressID(p.AccountID, p.BookID),
		AccountID:     p.AccountID,
		BookID:        p.BookID,
		PageNumber:    p.PageNumber,
		Percentage:    p.Percentage,
		MaxPage:       p.MaxPage,
		MaxPercentage: p.MaxPercentage,
		LastRead:      p.LastRead.UTC(),
		CompletedAt:   p.CompletedAt.UTC(),
	}
}

func (d progressDoc) toProgress() catalog.Progress {
	return catalog.Progress{
		AccountID:     d.AccountID,
		BookID:        d.BookID,
		PageNumber:    d.PageNumber,
		Percentage:    d.Percentage,
		MaxPage:       d.MaxPage,
		MaxPercentage: d.MaxPercentage,
		LastRead:      d.LastRead.UTC(),
		CompletedAt:   d.CompletedAt.UTC(),
	}
}

func toSessionDoc(s catalog.ReadingSession) sessionDoc {
	return sessionDoc{
		ID:            s.ID,
		AccountID:     s.AccountID,
		BookID:        s.BookID,
		At:            s.At.UTC(),
		LocalDay:      s.LocalDay,
		Seconds:       s.Seconds,
		FromPage:      s.FromPage,
		ToPage:        s.ToPage,
		PagesAdvanced: s.PagesAdvanced,
		WordsRead:     s.WordsRead,
		Completed:     s.Completed,
	}
}

func (d sessionDoc) toSession() catalog.ReadingSession {
	return catalog.ReadingSession{
		ID:            d.ID,
		AccountID:     d.AccountID,
		BookID:        d.BookID,
		At:            d.At.UTC(),
		LocalDay:      d.LocalDay,
		Seconds:       d.Seconds,
		FromPage:      d.FromPage,
		ToPage:        d.ToPage,
		PagesAdvanced: d.PagesAdvanced,
		WordsRead:     d.WordsRead,
		Completed:     d.Completed,
	}
}

// Get implements ports.ProgressRepository.
func (r *Progress) Get(ctx context.Context, accountID, bookID string) (catalog.Progress, error) {
	var d progressDoc
	if err := r.progress.FindOne(ctx, bson.D{{Key: "_id", Value: progressID(accountID, bookID)}}).Decode(&d); err != nil {
		return catalog.Progress{}, mapErr(err, "read the reading progress", catalog.ErrProgressNotFound, nil)
	}
	return d.toProgress(), nil
}

// Save implements ports.ProgressRepository with a replace-upsert by _id.
func (r *Progress) Save(ctx context.Context, p catalog.Progress) error {
	d := toProgressDoc(p)
	_, err := r.progress.ReplaceOne(ctx, bson.D{{Key: "_id", Value: d.ID}}, d, options.Replace().SetUpsert(true))
	return mapErr(err, "save the reading progress", nil, nil)
}

// accountProgress is the filter of every progress record of the account.
// The _id range holds exactly the ids that start with the account id and
// "|" ("}" follows "|"), so the _id index serves it without one of its own;
// the account_id equality keeps out an account whose id merely starts so.
func accountProgress(accountID string) bson.D {
	return bson.D{
		{Key: "_id", Value: bson.D{{Key: "$gte", Value: accountID + "|"}, {Key: "$lt", Value: accountID + "}"}}},
		{Key: "account_id", Value: accountID},
	}
}

// ListByAccount implements ports.ProgressRepository, ordered by book id.
func (r *Progress) ListByAccount(ctx context.Context, accountID string) ([]catalog.Progress, error) {
	return findAll(ctx, r.progress, "list the reading progress", accountProgress(accountID), options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}), progressDoc.toProgress)
}

// RecordSession implements ports.ProgressRepository.
func (r *Progress) RecordSession(ctx context.Context, s catalog.ReadingSession) error {
	return insertOne(ctx, r.sessions, "record the reading session", toSessionDoc(s), catalog.ErrSessionExists)
}

// TotalSeconds implements ports.ProgressRepository with one aggregate:
// $match on the account and book, $group with $sum of the seconds.
func (r *Progress) TotalSeconds(ctx context.Context, accountID, bookID string) (int64, error) {
	pipeline := mongo.Pipeline{
		{{Key: "$match", Value: bson.D{{Key: "account_id", Value: accountID}, {Key: "book_id", Value: bookID}}}},
		{{Key: "$group", Value: bson.D{{Key: "_id", Value: nil}, {Key: "total", Value: bson.D{{Key: "$sum", Value: "$seconds"}}}}}},
	}
	cur, err := r.sessions.Aggregate(ctx, pipeline)
	if err != nil {
		return 0, mapErr(err, "sum the reading time", nil, nil)
	}
	var rows []struct {
		Total int64 `bson:"total"`
	}
	if err := cur.All(ctx, &rows); err != nil {
		return 0, mapErr(err, "sum the reading time", nil, nil)
	}
	if len(rows) == 0 {
		return 0, nil // no session: $group has no group
	}
	return rows[0].Total, nil
}

// SessionTotals implements ports.ProgressRepository with one aggregate
// that $matches the accounts' sessions in the period on the
// {account_id, at} index and projects the fields summed; the sums are made
// here. FerretDB 1.24 implements no accumulator but $sum and $count (no
// $max, no $cond), so a $group could not give LastAt or CompletedAt, and
// a $limit on the sessions would cut a total short: the limit applies to
// the totals, here. Up to wholeBatch sessions come in the first reply;
// more cost getMores. No accounts, or a limit below 1, is no command.
func (r *Progress) SessionTotals(ctx context.Context, accountIDs []string, from, to time.Time, limit int) ([]catalog.SessionTotal, error) {
	out := []catalog.SessionTotal{}
	if len(accountIDs) == 0 || limit < 1 {
		return out, nil
	}
	const op = "sum the reading sessions"
	pipeline := mongo.Pipeline{
		{{Key: "$match", Value: bson.D{
			{Key: "account_id", Value: in(accountIDs)},
			{Key: "at", Value: bson.D{{Key: "$gte", Value: from.UTC()}, {Key: "$lte", Value: to.UTC()}}},
		}}},
		{{Key: "$project", Value: bson.D{{Key: "_id", Value: 0}, {Key: "account_id", Value: 1}, {Key: "book_id", Value: 1},
			{Key: "at", Value: 1}, {Key: "seconds", Value: 1}, {Key: "completed", Value: 1}}}},
	}
	cur, err := r.sessions.Aggregate(ctx, pipeline, options.Aggregate().SetBatchSize(wholeBatch))
	if err != nil {
		return nil, mapErr(err, op, nil, nil)
	}
	var rows []struct {
		AccountID string    `bson:"account_id"`
		BookID    string    `bson:"book_id"`
		At        time.Time `bson:"at"`
		Seconds   int64     `bson:"seconds"`
		Completed bool      `bson:"completed"`
	}
	if err := cur.All(ctx, &rows); err != nil {
		return nil, mapErr(err, op, nil, nil)
	}
	type key struct{ account, book string }
	index := map[key]int{}
	for _, row := range rows {
		k := key{row.AccountID, row.BookID}
		i, ok := index[k]
		if !ok {
			if len(out) == limit {
				continue // a total past the limit; the ones kept stay whole
			}
			i = len(out)
			index[k] = i
			out = append(out, catalog.SessionTotal{AccountID: row.AccountID, BookID: row.BookID})
		}
		t, at := &out[i], row.At.UTC()
		t.Seconds += row.Seconds
		if at.After(t.LastAt) {
			t.LastAt = at
		}
		if row.Completed && at.After(t.CompletedAt) {
			t.CompletedAt = at
		}
	}
	return out, nil
}

// Sessions implements ports.ProgressRepository: by time, then id.
func (r *Progress) Sessions(ctx context.Context, accountID string) ([]catalog.ReadingSession, error) {
	opts := options.Find().SetSort(bson.D{{Key: "at", Value: 1}, {Key: "_id", Value: 1}})
	return findAll(ctx, r.sessions, "list the reading sessions", bson.D{{Key: "account_id", Value: accountID}}, opts, sessionDoc.toSession)
}

// DeleteByAccount implements ports.ProgressRepository with two deleteMany:
// the progress records (accountProgress, served by the _id index), then the
// sessions (account_id, the prefix of their indexes). A failure in between
// leaves sessions that a repeated call removes.
func (r *Progress) DeleteByAccount(ctx context.Context, accountID string) error {
	if _, err := r.progress.DeleteMany(ctx, accountProgress(accountID)); err != nil {
		return mapErr(err, "delete the account's reading progress", nil, nil)
	}
	if _, err := r.sessions.DeleteMany(ctx, bson.D{{Key: "account_id", Value: accountID}}); err != nil {
		return mapErr(err, "delete the account's reading sessions", nil, nil)
	}
	return nil
}
