package mongorepo

import (
	"context"
	"errors"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/readinglibrary/service/core/catalog"
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
	switch k {
	case ports.KindSchools:
		return plain(r.db, k, colSchools, toSchoolDoc, schoolDoc.toSchool), nil
	case ports.KindAccounts:
		return withExternalIDs(r.db, plain(r.db, k, colAccounts, toAccountDoc, accountDoc.toAccount)), nil
	case ports.KindSigningKeys:
		return r.signingKeys(k), nil
	case ports.KindRefreshTokens:
		return plain(r.db, k, colRefreshTokens, toRefreshTokenDoc, refreshTokenDoc.toRefreshToken), nil
	case ports.KindRotations:
		return plain(r.db, k, colRefreshRotations, toStampDoc, claimDoc.toStamp), nil
	case ports.KindRevokedFamilies:
		return plain(r.db, k, colRevokedFamilies, toStampDoc, claimDoc.toStamp), nil
	case ports.KindBooks:
		return r.books(k), nil
	case ports.KindReadingList:
		return plain(r.db, k, colReadingList, toListItemDoc, listItemDoc.toListItem), nil
	case ports.KindProgress:
		return plain(r.db, k, colProgress, toProgressDoc, progressDoc.toProgress), nil
	case ports.KindSessions:
		return plain(r.db, k, colReadingSessions, toSessionDoc, sessionDoc.toSession), nil
	case ports.KindLibraryBooks:
		return plain(r.db, k, colLibraryBooks, toLibraryBookDoc, libraryBookDoc.toBook), nil
	case ports.KindCopies:
		return plain(r.db, k, colCopies, toCopyDoc, copyDoc.toCopy), nil
	case ports.KindLoans:
		return plain(r.db, k, colLoans, toLoanDoc, loanDoc.toLoan), nil
	case ports.KindRenewals:
		return plain(r.db, k, colRenewals, toRenewalDoc, renewalDoc.toRenewal), nil
	case ports.KindClaims:
		return plain(r.db, k, colCopyClaims, toCopyClaimDoc, copyClaimDoc.toCopyClaim), nil
	case ports.KindStudentNumbers:
		return plain(r.db, k, colStudentNumbers, toStudentNumberDoc, studentNumberDoc.toStudentNumber), nil
	case ports.KindInvites:
		return plain(r.db, k, colInvites, toInviteDoc, inviteDoc.toInvite), nil
	case ports.KindRedemptions:
		return plain(r.db, k, colRedemptions, toStampDoc, claimDoc.toStamp), nil
	case ports.KindExternalIdentities:
		return plain(r.db, k, colExternalIdentities, toExternalIdentityDoc, externalIdentityDoc.toExternalIdentity), nil
	case ports.KindMailTokens:
		return r.mailTokens(k), nil
	case ports.KindNoticeSettings:
		return plain(r.db, k, colNoticeSettings, toNoticeSettingsDoc, noticeSettingsDoc.toRecord), nil
	case ports.KindHomerooms:
		return plain(r.db, k, colHomerooms, toHomeroomDoc, homeroomDoc.toHomeroom), nil
	case ports.KindNotices:
		return plain(r.db, k, colNotices, toNoticeDoc, noticeDoc.toNotice), nil
	case ports.KindNoticeDays:
		return plain(r.db, k, colNoticeDays, toNoticeDayDoc, noticeDayDoc.toRecord), nil
	case ports.KindHolds:
		return plain(r.db, k, colHolds, toHoldDoc, holdDoc.toHold), nil
	case ports.KindHoldQueue:
		return plain(r.db, k, colHoldQueue, toHoldQueueDoc, holdQueueDoc.toEntry), nil
	case ports.KindHoldTraps:
		return plain(r.db, k, colHoldTraps, toHoldTrapDoc, holdTrapDoc.toTrap), nil
	case ports.KindHoldEnds:
		return plain(r.db, k, colHoldEnds, toHoldEndDoc, holdEndDoc.toEnd), nil
	case ports.KindLoanEndings:
		return plain(r.db, k, colLoanEndings, toLoanEndingDoc, loanEndingDoc.toLoanEnding), nil
	case ports.KindCharges:
		return plain(r.db, k, colCharges, toChargeDoc, chargeDoc.toCharge), nil
	case ports.KindSettlements:
		return plain(r.db, k, colSettlements, toSettlementDoc, settlementDoc.toSettlement), nil
	case ports.KindRollovers:
		return plain(r.db, k, colRosterRollovers, toRolloverDoc, rolloverDoc.toRollover), nil
	case ports.KindStocktakes:
		return plain(r.db, k, colStocktakes, toStocktakeDoc, stocktakeDoc.toStocktake), nil
	case ports.KindStocktakeScans:
		return plain(r.db, k, colStocktakeScans, toScanDoc, scanDoc.toScan), nil
	case ports.KindImportJobs:
		return importJobRecords(r.db, k), nil
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

// books is the handling of KindBooks: a book document and, in
// chapter_texts, one document per chapter text. Texts that no book names
// (left behind by a failed Books.Create) are unreachable through the
// repository, so they are neither counted nor read.
func (r *Records) books(kind ports.RecordKind) recordKind {
	books, texts := r.db.Collection(colBooks), r.db.Collection(colChapterTexts)
	return recordKind{
		counted: books,
		read: func(ctx context.Context, batchSize int, fn func([]any) error) error {
			return readBatches(ctx, books, kind, batchSize, func(docs []bookDoc) error {
				ids := make([]string, len(docs))
				for i, d := range docs {
					ids[i] = d.ID
				}
				byBook, err := textsOfBooks(ctx, texts, ids)
				if err != nil {
					return err
				}
				return fn(anys(docs, func(d bookDoc) ports.BookRecord {
					return ports.BookRecord{Book: d.toBook(), Texts: byBook[d.ID]}
				}))
			})
		},
		// The texts go first, as Books.Create writes them: a book is never
		// visible without its texts, and a failure in between leaves only
		// texts that no book reaches.
		write: func(ctx context.Context, records []any) error {
			recs, err := ports.RecordsAs[ports.BookRecord](kind, records)
			if err != nil {
				return err
			}
			var textDocs []any
			bookDocs := make([]any, len(recs))
			for i, rec := range recs {
				for _, t := range rec.Texts {
					textDocs = append(textDocs, toChapterTextDoc(t))
				}
				bookDocs[i] = toBookDoc(rec.Book)
			}
			if err := insertAll(ctx, texts, kind, textDocs); err != nil {
				return err
			}
			return insertAll(ctx, books, kind, bookDocs)
		},
	}
}

// textsOfBooks returns the texts of the given books by book id, each
// book's in position order, with one find for the whole batch of books
// rather than one per book. MongoDB serves it from the {book_id, position}
// index; FerretDB 1.24 uses no index for it and reads every text once per
// batch, so there fewer, larger batches copy a big catalog much faster.
func textsOfBooks(ctx context.Context, texts *mongo.Collection, bookIDs []string) (map[string][]catalog.ChapterText, error) {
	const op = "read the chapter texts"
	opts := options.Find().
		SetSort(bson.D{{Key: "book_id", Value: 1}, {Key: "position", Value: 1}, {Key: "_id", Value: 1}}).
		SetBatchSize(wholeBatch)
	cur, err := texts.Find(ctx, bson.D{{Key: "book_id", Value: in(bookIDs)}}, opts)
	if err != nil {
		return nil, mapErr(err, op, nil, nil)
	}
	defer cur.Close(ctx)
	out := make(map[string][]catalog.ChapterText, len(bookIDs))
	for cur.Next(ctx) {
		var d chapterTextDoc
		if err := cur.Decode(&d); err != nil {
			return nil, mapErr(err, op, nil, nil)
		}
		out[d.BookID] = append(out[d.BookID], d.toChapterText())
	}
	if err := cur.Err(); err != nil {
		return nil, mapErr(err, op, nil, nil)
	}
	return out, nil
}

// mailTokens is the handling of KindMailTokens: the documents of
// mail_tokens that no claim in mail_token_uses names. A claimed token whose
// removal failed is used, refused by Consume for good; copied, it would
// work again in a store that keeps no claims, so it is neither counted nor
// read. Written tokens are plain inserts, as MailTokens.Create makes them.
func (r *Records) mailTokens(kind ports.RecordKind) recordKind {
	tokens, uses := r.db.Collection(colMailTokens), r.db.Collection(colMailTokenUses)
	// used returns which of hashes a claim names, with one find.
	used := func(ctx context.Context, hashes []string) (map[string]bool, error) {
		cur, err := uses.Find(ctx, bson.D{{Key: "_id", Value: in(hashes)}},
			options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}}).SetBatchSize(wholeBatch))
		if err != nil {
			return nil, mapErr(err, "read the mailed token uses", nil, nil)
		}
		defer cur.Close(ctx)
		out := map[string]bool{}
		for cur.Next(ctx) {
			var d struct {
				Hash string `bson:"_id"`
			}
			if err := cur.Decode(&d); err != nil {
				return nil, mapErr(err, "read the mailed token uses", nil, nil)
			}
			out[d.Hash] = true
		}
		return out, mapErr(cur.Err(), "read the mailed token uses", nil, nil)
	}
	// unused calls each with the unused tokens of every batch of documents
	// that holds any.
	unused := func(ctx context.Context, batchSize int, each func([]mailTokenDoc) error) error {
		return readBatches(ctx, tokens, kind, batchSize, func(docs []mailTokenDoc) error {
			hashes := make([]string, len(docs))
			for i, d := range docs {
				hashes[i] = d.Hash
			}
			claimed, err := used(ctx, hashes)
			if err != nil {
				return err
			}
			var keep []mailTokenDoc
			for _, d := range docs {
				if !claimed[d.Hash] {
					keep = append(keep, d)
				}
			}
			if len(keep) == 0 {
				return nil
			}
			return each(keep)
		})
	}
	return recordKind{
		counted: tokens,
		count: func(ctx context.Context) (int64, error) {
			var n int64
			err := unused(ctx, int(wholeBatch), func(docs []mailTokenDoc) error {
				n += int64(len(docs))
				return nil
			})
			return n, err
		},
		read: func(ctx context.Context, batchSize int, fn func([]any) error) error {
			return unused(ctx, batchSize, func(docs []mailTokenDoc) error {
				return fn(anys(docs, mailTokenDoc.toMailToken))
			})
		},
		write: insertAs(tokens, kind, toMailTokenDoc),
	}
}

// signingKeys is the handling of KindSigningKeys: the keys in
// signing_keys, and the pointer document naming the active one.
func (r *Records) signingKeys(kind ports.RecordKind) recordKind {
	keys, active := r.db.Collection(colSigningKeys), r.db.Collection(colActiveSigningKey)
	return recordKind{
		counted: keys,
		// The pointer is read before the keys, as SigningKeys.List does:
		// the active key is always stored before its pointer.
		read: func(ctx context.Context, batchSize int, fn func([]any) error) error {
			var p activeKeyDoc
			err := active.FindOne(ctx, bson.D{{Key: "_id", Value: activeKeyID}}).Decode(&p)
			if err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
				return mapErr(err, "read the active signing key", nil, nil)
			}
			return readBatches(ctx, keys, kind, batchSize, func(docs []signingKeyDoc) error {
				return fn(anys(docs, func(d signingKeyDoc) ports.SigningKeyRecord {
					return ports.SigningKeyRecord{Key: d.toSigningKey(), Active: p.Kid != "" && d.ID == p.Kid}
				}))
			})
		},
		// The keys go first and the pointer after, so the pointer never
		// names a missing key. The pointer's fixed _id lets only one key be
		// active: a second active record, in this batch or an earlier one,
		// is a Conflict.
		write: func(ctx context.Context, records []any) error {
			recs, err := ports.RecordsAs[ports.SigningKeyRecord](kind, records)
			if err != nil {
				return err
			}
			docs := anys(recs, func(rec ports.SigningKeyRecord) signingKeyDoc { return toSigningKeyDoc(rec.Key) })
			if err := insertAll(ctx, keys, kind, docs); err != nil {
				return err
			}
			for _, rec := range recs {
				if !rec.Active {
					continue
				}
				if err := insertAll(ctx, active, kind, []any{activeKeyDoc{ID: activeKeyID, Kid: rec.Key.ID}}); err != nil {
					return err
				}
			}
			return nil
		},
	}
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
