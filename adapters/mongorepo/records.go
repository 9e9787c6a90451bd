package mongorepo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/ports"
)

var _ ports.RecordStore = (*Records)(nil)

// Records is the MongoDB ports.RecordStore. Each kind is read from and
// written to the collection its repository keeps it in, through the same
// document conversions, so a written record is exactly what the repository
// would have stored: derived fields (search_terms, email_key, isbn_key) and
// composite _ids (claims, renewals, student numbers, progress) are computed
// on the way in, and dropped again on the way out.
//
// Writes are ordered insertMany commands and nothing else: no transaction
// and no upsert, so a key that is already taken is refused by the _id or a
// unique index and reported as a Conflict instead of overwriting a record.
// An ordered insert stops at the first refused document; the ones before
// it stay written.
type Records struct {
	db *mongo.Database
}

// NewRecords returns the record store of db. It panics on nil, a wiring
// bug.
func NewRecords(db *mongo.Database) *Records {
	mustDB(db, "NewRecords")
	return &Records{db: db}
}

// Records returns the record store of this database, for copying it into
// another store or another store into it.
func (d *DB) Records() ports.RecordStore { return NewRecords(d.db) }

// recordKind is how one kind of record is counted, read and written.
type recordKind struct {
	// counted is the collection holding one document per record (a book's
	// texts and the active-key pointer live elsewhere and are not counted).
	counted *mongo.Collection
	// count, when set, counts the records instead of counted.
	count func(ctx context.Context) (int64, error)
	read  func(ctx context.Context, batchSize int, fn func([]any) error) error
	write func(ctx context.Context, records []any) error
}

// kind returns the handling of k. Errors: Invalid for an unknown kind.
func (r *Records) kind(k ports.RecordKind) (recordKind, error) {
	if handle, ok := recordKinds()[k]; ok {
		return handle(r.db, k), nil
	}
	return recordKind{}, errs.E(errs.Invalid, errs.CodeUnknownRecordKind, "There is no record kind %q.", k)
}

// Count implements ports.RecordStore with one count of the kind's
// collection: countDocuments with an empty filter, exact where the
// collection's metadata estimate may not be.
func (r *Records) Count(ctx context.Context, kind ports.RecordKind) (int64, error) {
	k, err := r.kind(kind)
	if err != nil {
		return 0, err
	}
	var n int64
	if k.count != nil {
		n, err = k.count(ctx)
	} else {
		n, err = k.counted.CountDocuments(ctx, bson.D{})
	}
	if err != nil {
		return 0, mapErr(err, "count the "+string(kind)+" records", nil, nil)
	}
	return n, nil
}

// Read implements ports.RecordStore with one cursor over the kind's
// collection, in the store's natural order, batchSize documents per round
// trip (at most wholeBatch); books cost one more find per batch for their
// texts, and signing keys one read of the active-key pointer first.
// Errors: Invalid for a batchSize below 1 or an unknown kind; fn's error as
// fn returned it.
func (r *Records) Read(ctx context.Context, kind ports.RecordKind, batchSize int, fn func(records []any) error) error {
	k, err := r.kind(kind)
	if err != nil {
		return err
	}
	if err := ports.CheckBatchSize(batchSize); err != nil {
		return err
	}
	return k.read(ctx, batchSize, fn)
}

// Write implements ports.RecordStore. Every record is checked to be of the
// kind's type before anything is written, so a wrong record writes nothing.
func (r *Records) Write(ctx context.Context, kind ports.RecordKind, records []any) error {
	k, err := r.kind(kind)
	if err != nil {
		return err
	}
	return k.write(ctx, records)
}

// plain is the handling of a kind stored as one document per record in
// collection, converted by toDoc and toRecord.
func plain[T, D any](db *mongo.Database, kind ports.RecordKind, collection string, toDoc func(T) D, toRecord func(D) T) recordKind {
	c := db.Collection(collection)
	return recordKind{
		counted: c,
		read: func(ctx context.Context, batchSize int, fn func([]any) error) error {
			return readBatches(ctx, c, kind, batchSize, func(docs []D) error {
				return fn(anys(docs, toRecord))
			})
		},
		write: insertAs(c, kind, toDoc),
	}
}

// plainRecords registers a kind stored as one document per record in
// collection (plain).
func plainRecords[T, D any](collection string, toDoc func(T) D, toRecord func(D) T) records {
	return func(db *mongo.Database, k ports.RecordKind) recordKind {
		return plain(db, k, collection, toDoc, toRecord)
	}
}

// insertAs is the write of a kind stored as one document per record in c:
// every record is checked to be a T, then all are inserted converted by
// toDoc.
func insertAs[T, D any](c *mongo.Collection, kind ports.RecordKind, toDoc func(T) D) func(context.Context, []any) error {
	return func(ctx context.Context, records []any) error {
		recs, err := ports.RecordsAs[T](kind, records)
		if err != nil {
			return err
		}
		return insertAll(ctx, c, kind, anys(recs, toDoc))
	}
}

// anys converts every element of in with conv, into the []any that a
// kind's records and insertAll's documents are.
func anys[S, T any](in []S, conv func(S) T) []any {
	out := make([]any, len(in))
	for i, v := range in {
		out[i] = conv(v)
	}
	return out
}

// readBatches runs one find over every document of c and calls each with
// the documents batchSize at a time (the last batch may be shorter). An
// error from each stops the read and is returned as it is.
func readBatches[D any](ctx context.Context, c *mongo.Collection, kind ports.RecordKind, batchSize int, each func([]D) error) error {
	op := "read the " + string(kind) + " records"
	// FerretDB 1.24 allocates room for a whole batch before it reads, so
	// a huge batchSize is fetched wholeBatch documents per round trip.
	opts := options.Find().SetBatchSize(int32(min(batchSize, int(wholeBatch))))
	cur, err := c.Find(ctx, bson.D{}, opts)
	if err != nil {
		return mapErr(err, op, nil, nil)
	}
	defer cur.Close(ctx)
	var batch []D
	for cur.Next(ctx) {
		var d D
		if err := cur.Decode(&d); err != nil {
			return mapErr(err, op, nil, nil)
		}
		batch = append(batch, d)
		if len(batch) == batchSize {
			if err := each(batch); err != nil {
				return err
			}
			batch = nil // each may keep what it was given
		}
	}
	if err := cur.Err(); err != nil {
		return mapErr(err, op, nil, nil)
	}
	if len(batch) > 0 {
		return each(batch)
	}
	return nil
}

// insertAll inserts docs into c with one ordered insertMany (which the
// driver splits into as many commands as the server's message size
// needs). No docs is no command. A refused key is a Conflict that keeps
// the driver's error, which names the key, for the logs.
func insertAll(ctx context.Context, c *mongo.Collection, kind ports.RecordKind, docs []any) error {
	if len(docs) == 0 {
		return nil
	}
	_, err := c.InsertMany(ctx, docs, options.InsertMany().SetOrdered(true))
	if err != nil && mongo.IsDuplicateKeyError(err) {
		e := errs.E(errs.Conflict, errs.CodeRecordExists, "A record of kind %s with the same key is already stored.", kind)
		e.Err = err
		return e
	}
	return mapErr(err, "write the "+string(kind)+" records", nil, nil)
}

// toStampDoc is the document of a rotation claim, a family revocation or
// an invitation's redemption, as RefreshTokens and Invites insert them.
func toStampDoc(s ports.Stamp) claimDoc { return claimDoc{ID: s.ID, At: s.At.UTC()} }

func (d claimDoc) toStamp() ports.Stamp { return ports.Stamp{ID: d.ID, At: d.At.UTC()} }

// toStudentNumberDoc is the document of a student number, as
// Students.ClaimNumber inserts it.
func toStudentNumberDoc(n ports.StudentNumber) studentNumberDoc {
	return studentNumberDoc{ID: studentNumberID(n.SchoolID, n.Number), SchoolID: n.SchoolID, Number: n.Number, AccountID: n.AccountID}
}

func (d studentNumberDoc) toStudentNumber() ports.StudentNumber {
	return ports.StudentNumber{SchoolID: d.SchoolID, Number: d.Number, AccountID: d.AccountID}
}
