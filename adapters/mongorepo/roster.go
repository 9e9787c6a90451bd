package mongorepo

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/roster"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

const (
	colRosterRollovers = "roster_rollovers"
	colRosterJournals  = "roster_applies"
)

var _ = register(entity{
	collections: []collection{
		{colRosterRollovers, nil},
		// The roster changes a crash interrupted (finishRosters).
		{colRosterJournals, []mongo.IndexModel{
			{Keys: bson.D{{Key: "started_at", Value: 1}}},
		}},
	},
	records: map[ports.RecordKind]records{
		ports.KindRollovers: plainRecords(colRosterRollovers, toRolloverDoc, rolloverDoc.toRollover),
	},
})

// externalIDDoc claims a stable roster id in a school for one account:
// its _id is the school and the id, so one insert wins each id (FerretDB
// 1.24 has no partial unique indexes, which accounts would need).
type externalIDDoc struct {
	ID        string `bson:"_id"` // externalIDKey(school, id)
	SchoolID  string `bson:"school_id"`
	AccountID string `bson:"account_id"`
}

// rosterBatch is how many changed students one bulk write replaces.
const rosterBatch = 500

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

func toRolloverDoc(ro roster.Rollover) rolloverDoc {
	return rolloverDoc{ID: rolloverKey(ro.SchoolID, ro.SchoolYear), SchoolID: ro.SchoolID, SchoolYear: ro.SchoolYear,
		LeavingGrade: ro.LeavingGrade, Promoted: ro.Promoted, Left: ro.Left, At: bson.NewDateTimeFromTime(ro.At)}
}

func (d rolloverDoc) toRollover() roster.Rollover {
	return roster.Rollover{SchoolID: d.SchoolID, SchoolYear: d.SchoolYear, LeavingGrade: d.LeavingGrade,
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
// Before any of it, a journal (roster_applies) records the stored
// accounts and the claims to make; a crash leaves it behind, and the next
// start (finishRosters) rolls the change back, unless its new students
// were committed, the sync's commit. A change without new students
// commits by deleting its journal.
//
// Not atomic to readers: while it runs a list may show some changed
// students changed and others not.
func (r *Students) ApplyRoster(ctx context.Context, c roster.RosterChange) error {
	if len(c.Changed) == 0 && c.Rollover == nil && !anyExternalID(c.Add) {
		return r.ImportStudents(ctx, c.Add) // all or nothing by itself
	}
	wctx, cancel := writeContext(ctx)
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
	journal, err := r.startJournal(wctx, c)
	if err != nil {
		return err
	}
	undo = append(undo, func(ctx context.Context) { _, _ = r.journals.DeleteOne(ctx, bson.D{{Key: "_id", Value: journal}}) })
	if ro := c.Rollover; ro != nil {
		d := toRolloverDoc(*ro)
		if _, err := r.rollovers.InsertOne(wctx, d); err != nil {
			return fail(mapErr(err, "claim the rollover", nil, library.ErrRolloverDone))
		}
		undo = append(undo, func(ctx context.Context) { _, _ = r.rollovers.DeleteOne(ctx, bson.D{{Key: "_id", Value: d.ID}}) })
	}
	// Claims are inserted in one insertMany per collection; a clash part
	// way leaves the earlier ones, so the undo removes exactly the claims
	// of these accounts (a clashing claim is another account's).
	var numbers, externals []any
	var numberIDs, externalIDs, owners []string
	for i, a := range c.Changed {
		before := c.Before[i]
		if a.StudentNumber != "" && before.StudentNumber == "" {
			n := toStudentNumberDoc(ports.StudentNumber{SchoolID: a.SchoolID, Number: a.StudentNumber, AccountID: a.ID})
			numbers, numberIDs = append(numbers, n), append(numberIDs, n.ID)
		}
		if a.ExternalID != "" && before.ExternalID == "" {
			e := externalIDDoc{ID: externalIDKey(a.SchoolID, a.ExternalID), SchoolID: a.SchoolID, AccountID: a.ID}
			externals, externalIDs = append(externals, e), append(externalIDs, e.ID)
		}
		owners = append(owners, a.ID)
	}
	// New students' external ids; their numbers are ImportStudents'.
	for _, a := range c.Add {
		if a.ExternalID != "" {
			e := externalIDDoc{ID: externalIDKey(a.SchoolID, a.ExternalID), SchoolID: a.SchoolID, AccountID: a.ID}
			externals, externalIDs = append(externals, e), append(externalIDs, e.ID)
			owners = append(owners, a.ID)
		}
	}
	undo = append(undo, func(ctx context.Context) {
		mine := func(ids []string) bson.D {
			return bson.D{{Key: "_id", Value: in(ids)}, {Key: "account_id", Value: in(owners)}}
		}
		if len(numberIDs) > 0 {
			_, _ = r.numbers.DeleteMany(ctx, mine(numberIDs))
		}
		if len(externalIDs) > 0 {
			_, _ = r.externals.DeleteMany(ctx, mine(externalIDs))
		}
	})
	if len(numbers) > 0 {
		if _, err := r.numbers.InsertMany(wctx, numbers); err != nil {
			return fail(mapInsertManyErr(err, "claim the student numbers", library.ErrStudentNumberExists))
		}
	}
	if len(externals) > 0 {
		if _, err := r.externals.InsertMany(wctx, externals); err != nil {
			return fail(mapInsertManyErr(err, "claim the external ids", library.ErrExternalIDExists))
		}
	}
	if err := ctx.Err(); err != nil {
		return fail(mapErr(err, "apply the roster", nil, nil))
	}
	// The changed accounts, rosterBatch at a time in one bulk write each
	// (a rollover changes the whole school); a failed batch undoes every
	// batch up to its own by writing back the stored accounts.
	for from := 0; from < len(c.Changed); from += rosterBatch {
		to := min(from+rosterBatch, len(c.Changed))
		models := make([]mongo.WriteModel, 0, to-from)
		for _, a := range c.Changed[from:to] {
			models = append(models, mongo.NewReplaceOneModel().SetFilter(visible(bson.D{{Key: "_id", Value: a.ID}})).SetReplacement(toAccountDoc(a)))
		}
		befores := c.Before[from:to]
		undo = append(undo, func(ctx context.Context) {
			back := make([]mongo.WriteModel, 0, len(befores))
			for _, b := range befores {
				back = append(back, mongo.NewReplaceOneModel().SetFilter(bson.D{{Key: "_id", Value: b.ID}}).SetReplacement(toAccountDoc(b)))
			}
			_, _ = r.accounts.BulkWrite(ctx, back, options.BulkWrite().SetOrdered(false))
		})
		res, err := r.accounts.BulkWrite(wctx, models)
		if err != nil {
			return fail(mapInsertManyErr(err, "update the students", user.ErrEmailTaken))
		}
		if int(res.MatchedCount) != len(models) {
			return fail(library.ErrStudentNotFound())
		}
		if err := ctx.Err(); err != nil {
			return fail(mapErr(err, "apply the roster", nil, nil))
		}
	}
	if err := r.ImportStudents(ctx, c.Add); err != nil {
		return fail(err)
	}
	_, err = r.journals.DeleteOne(wctx, bson.D{{Key: "_id", Value: journal}})
	if err != nil && len(c.Add) == 0 {
		// Without new students the journal's removal is the commit.
		return fail(mapErr(err, "commit the roster", nil, nil))
	}
	return nil
}

func anyExternalID(accounts []user.Account) bool {
	for _, a := range accounts {
		if a.ExternalID != "" {
			return true
		}
	}
	return false
}

// rosterJournalDoc records an ApplyRoster under way: what to write back
// and which claims to remove if it never finishes.
type rosterJournalDoc struct {
	ID          string       `bson:"_id"`
	Befores     []accountDoc `bson:"befores"`
	Owners      []string     `bson:"owners"` // the accounts whose claims it makes
	NumberIDs   []string     `bson:"number_ids"`
	ExternalIDs []string     `bson:"external_ids"`
	RolloverID  string       `bson:"rollover_id"`
	Adds        []string     `bson:"adds"` // the new students' ids: present, the change committed
	StartedAt   time.Time    `bson:"started_at"`
}

// startJournal stores the journal of c and returns its id.
func (r *Students) startJournal(ctx context.Context, c roster.RosterChange) (string, error) {
	var raw [16]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", mapErr(err, "start the roster", nil, nil)
	}
	j := rosterJournalDoc{ID: hex.EncodeToString(raw[:]), Befores: []accountDoc{}, Owners: []string{}, NumberIDs: []string{},
		ExternalIDs: []string{}, Adds: []string{}, StartedAt: time.Now().UTC()}
	for i, a := range c.Changed {
		before := c.Before[i]
		j.Befores = append(j.Befores, toAccountDoc(before))
		j.Owners = append(j.Owners, a.ID)
		if a.StudentNumber != "" && before.StudentNumber == "" {
			j.NumberIDs = append(j.NumberIDs, studentNumberID(a.SchoolID, a.StudentNumber))
		}
		if a.ExternalID != "" && before.ExternalID == "" {
			j.ExternalIDs = append(j.ExternalIDs, externalIDKey(a.SchoolID, a.ExternalID))
		}
	}
	for _, a := range c.Add {
		j.Adds, j.Owners = append(j.Adds, a.ID), append(j.Owners, a.ID)
		if a.ExternalID != "" {
			j.ExternalIDs = append(j.ExternalIDs, externalIDKey(a.SchoolID, a.ExternalID))
		}
	}
	if c.Rollover != nil {
		j.RolloverID = rolloverKey(c.Rollover.SchoolID, c.Rollover.SchoolYear)
	}
	if _, err := r.journals.InsertOne(ctx, j); err != nil {
		return "", mapErr(err, "start the roster", nil, nil)
	}
	return j.ID, nil
}

// finishRosters settles the roster changes a crash interrupted, those
// started before olderThan (after finishImports, so a committed import is
// published): one whose new students exist committed, and its journal
// goes; any other is rolled back (accounts written back, its claims and
// its rollover's removed). It reads roster_applies by started_at.
func finishRosters(ctx context.Context, db *mongo.Database, olderThan time.Time) error {
	journals := db.Collection(colRosterJournals)
	docs, err := findDocs[rosterJournalDoc](ctx, journals, "find unfinished roster changes", bson.D{{Key: "started_at", Value: bson.D{{Key: "$lt", Value: olderThan}}}})
	if err != nil {
		return err
	}
	accounts := db.Collection(colAccounts)
	for _, j := range docs {
		committed := false
		if len(j.Adds) > 0 {
			n, err := accounts.CountDocuments(ctx, visible(bson.D{{Key: "_id", Value: j.Adds[0]}}))
			if err != nil {
				return mapErr(err, "settle a roster change", nil, nil)
			}
			committed = n > 0
		}
		if !committed {
			if err := rollBackRoster(ctx, db, j); err != nil {
				return err
			}
		}
		if _, err := journals.DeleteOne(ctx, bson.D{{Key: "_id", Value: j.ID}}); err != nil {
			return mapErr(err, "settle a roster change", nil, nil)
		}
	}
	return nil
}

func rollBackRoster(ctx context.Context, db *mongo.Database, j rosterJournalDoc) error {
	if len(j.Befores) > 0 {
		back := make([]mongo.WriteModel, 0, len(j.Befores))
		for _, b := range j.Befores {
			back = append(back, mongo.NewReplaceOneModel().SetFilter(bson.D{{Key: "_id", Value: b.ID}}).SetReplacement(b))
		}
		if _, err := db.Collection(colAccounts).BulkWrite(ctx, back, options.BulkWrite().SetOrdered(false)); err != nil {
			return mapErr(err, "roll back a roster change", nil, nil)
		}
	}
	mine := func(ids []string) bson.D {
		return bson.D{{Key: "_id", Value: in(ids)}, {Key: "account_id", Value: in(j.Owners)}}
	}
	for col, ids := range map[string][]string{colStudentNumbers: j.NumberIDs, colExternalIDs: j.ExternalIDs} {
		if len(ids) == 0 {
			continue
		}
		if _, err := db.Collection(col).DeleteMany(ctx, mine(ids)); err != nil {
			return mapErr(err, "roll back a roster change", nil, nil)
		}
	}
	if j.RolloverID != "" {
		if _, err := db.Collection(colRosterRollovers).DeleteOne(ctx, bson.D{{Key: "_id", Value: j.RolloverID}}); err != nil {
			return mapErr(err, "roll back a roster change", nil, nil)
		}
	}
	return nil
}

// Rollover implements ports.StudentRepository: one find by _id.
func (r *Students) Rollover(ctx context.Context, schoolID, schoolYear string) (roster.Rollover, error) {
	return findOne(ctx, r.rollovers, "read the rollover", bson.D{{Key: "_id", Value: rolloverKey(schoolID, schoolYear)}},
		roster.ErrRolloverNotFound, rolloverDoc.toRollover)
}
