package mongorepo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// externalIDDoc claims a stable roster id in a school for one account:
// its _id is the school and the id, so one insert wins each id (FerretDB
// 1.24 has no partial unique indexes, which accounts would need).
type externalIDDoc struct {
	ID        string `bson:"_id"` // externalIDKey(school, id)
	SchoolID  string `bson:"school_id"`
	AccountID string `bson:"account_id"`
}

func externalIDKey(schoolID, id string) string { return schoolID + "#" + id }

// rolloverDoc records a school's year-end rollover; its _id, the school
// and the school year, is the once-per-year claim.
type rolloverDoc struct {
	ID           string        `bson:"_id"`
	SchoolID     string        `bson:"school_id"`
	SchoolYear   string        `bson:"school_year"`
	LeavingGrade string        `bson:"leaving_grade"`
	Promoted     int           `bson:"promoted"`
	Left         int           `bson:"left"`
	At           bson.DateTime `bson:"at"`
}

func rolloverKey(schoolID, year string) string { return schoolID + "#" + year }

func toRolloverDoc(ro library.Rollover) rolloverDoc {
	return rolloverDoc{ID: rolloverKey(ro.SchoolID, ro.SchoolYear), SchoolID: ro.SchoolID, SchoolYear: ro.SchoolYear,
		LeavingGrade: ro.LeavingGrade, Promoted: ro.Promoted, Left: ro.Left, At: bson.NewDateTimeFromTime(ro.At)}
}

func (d rolloverDoc) toRollover() library.Rollover {
	return library.Rollover{SchoolID: d.SchoolID, SchoolYear: d.SchoolYear, LeavingGrade: d.LeavingGrade,
		Promoted: d.Promoted, Left: d.Left, At: d.At.Time().UTC()}
}

// withExternalIDs makes the accounts kind's write also claim each
// account's external id, which this store keeps apart from the account.
func withExternalIDs(db *mongo.Database, k recordKind) recordKind {
	write := k.write
	c := db.Collection(colExternalIDs)
	k.write = func(ctx context.Context, records []any) error {
		if err := write(ctx, records); err != nil {
			return err
		}
		var claims []any
		for _, rec := range records {
			if a, ok := rec.(user.Account); ok && a.ExternalID != "" {
				claims = append(claims, externalIDDoc{ID: externalIDKey(a.SchoolID, a.ExternalID), SchoolID: a.SchoolID, AccountID: a.ID})
			}
		}
		if len(claims) == 0 {
			return nil
		}
		return insertAll(ctx, c, ports.KindAccounts, claims)
	}
	return k
}

// ApplyRoster implements ports.StudentRepository without transactions
// (FerretDB 1.24 has none): each step's undo is kept, and any failure runs
// them backwards on a context of its own. The rollover's claim comes
// first, then the claims of new numbers and external ids of changed
// students, then the changed accounts (undone by writing back c.Before),
// and last the new students through ImportStudents, whose own commit
// (invisible until then, all or none) is the sync's.
//
// Not atomic to readers: while it runs a list may show some changed
// students changed and others not, and a crash in the middle of the
// changed accounts leaves those written (the next sync of the same file
// finishes them).
func (r *Students) ApplyRoster(ctx context.Context, c library.RosterChange) error {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), importWriteTimeout)
	defer cancel()
	var undo []func(context.Context)
	fail := func(cause error) error {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), importCleanupTimeout)
		defer cancel()
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i](cctx)
		}
		return cause
	}
	if ro := c.Rollover; ro != nil {
		d := toRolloverDoc(*ro)
		if _, err := r.rollovers.InsertOne(wctx, d); err != nil {
			return mapErr(err, "claim the rollover", nil, library.ErrRolloverDone)
		}
		undo = append(undo, func(ctx context.Context) { _, _ = r.rollovers.DeleteOne(ctx, bson.D{{Key: "_id", Value: d.ID}}) })
	}
	var numberIDs, externalIDs []string
	undo = append(undo, func(ctx context.Context) {
		if len(numberIDs) > 0 {
			_, _ = r.numbers.DeleteMany(ctx, bson.D{{Key: "_id", Value: in(numberIDs)}})
		}
		if len(externalIDs) > 0 {
			_, _ = r.externals.DeleteMany(ctx, bson.D{{Key: "_id", Value: in(externalIDs)}})
		}
	})
	claim := func(a user.Account, before user.Account) error {
		if a.StudentNumber != "" && before.StudentNumber == "" {
			n := toStudentNumberDoc(ports.StudentNumber{SchoolID: a.SchoolID, Number: a.StudentNumber, AccountID: a.ID})
			if _, err := r.numbers.InsertOne(wctx, n); err != nil {
				return mapErr(err, "claim the student number", nil, library.ErrStudentNumberExists)
			}
			numberIDs = append(numberIDs, n.ID)
		}
		if a.ExternalID != "" && before.ExternalID == "" {
			e := externalIDDoc{ID: externalIDKey(a.SchoolID, a.ExternalID), SchoolID: a.SchoolID, AccountID: a.ID}
			if _, err := r.externals.InsertOne(wctx, e); err != nil {
				return mapErr(err, "claim the external id", nil, library.ErrExternalIDExists)
			}
			externalIDs = append(externalIDs, e.ID)
		}
		return nil
	}
	for i, a := range c.Changed {
		if err := claim(a, c.Before[i]); err != nil {
			return fail(err)
		}
	}
	// New students' external ids; their numbers are ImportStudents'.
	for _, a := range c.Add {
		if err := claim(user.Account{ExternalID: a.ExternalID, SchoolID: a.SchoolID, ID: a.ID}, user.Account{}); err != nil {
			return fail(err)
		}
	}
	if err := ctx.Err(); err != nil {
		return fail(mapErr(err, "apply the roster", nil, nil))
	}
	for i, a := range c.Changed {
		res, err := r.accounts.ReplaceOne(wctx, visible(bson.D{{Key: "_id", Value: a.ID}}), toAccountDoc(a))
		if err != nil {
			return fail(mapErr(err, "update the student", nil, user.ErrEmailTaken))
		}
		if res.MatchedCount == 0 {
			return fail(library.ErrStudentNotFound())
		}
		before := c.Before[i]
		undo = append(undo, func(ctx context.Context) {
			_, _ = r.accounts.ReplaceOne(ctx, bson.D{{Key: "_id", Value: before.ID}}, toAccountDoc(before))
		})
		if i%100 == 99 {
			if err := ctx.Err(); err != nil {
				return fail(mapErr(err, "apply the roster", nil, nil))
			}
		}
	}
	if err := r.ImportStudents(ctx, c.Add); err != nil {
		return fail(err)
	}
	return nil
}

// Rollover implements ports.StudentRepository: one find by _id.
func (r *Students) Rollover(ctx context.Context, schoolID, schoolYear string) (library.Rollover, error) {
	return findOne(ctx, r.rollovers, "read the rollover", bson.D{{Key: "_id", Value: rolloverKey(schoolID, schoolYear)}},
		library.ErrRolloverNotFound, rolloverDoc.toRollover)
}
