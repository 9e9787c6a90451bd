// Package mongorepo implements the ports repositories on MongoDB with
// mongo-driver v2. It stays inside the subset of MongoDB that FerretDB 1.24
// also implements correctly: every exactly-once guarantee is a unique-key
// insert, never a conditional update or a transaction, because FerretDB
// applies updates as unguarded read-modify-writes.
//
// Like every adapter it may import ports, the core packages and outside
// libraries, but no other adapter and nothing under cmd (the layer rules of
// test/architecture_test.go).
package mongorepo

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"

	"github.com/readinglibrary/service/ports"
)

// Collection names.
const (
	colAccounts          = "accounts"
	colSchools           = "schools"
	colRefreshTokens     = "refresh_tokens"
	colRefreshRotations  = "refresh_rotations"
	colRevokedFamilies   = "revoked_families"
	colSigningKeys       = "signing_keys"
	colActiveSigningKey  = "active_signing_key"
	colBooks             = "books"
	colChapterTexts      = "chapter_texts"
	colReadingList       = "reading_list"
	colProgress          = "progress"
	colReadingSessions   = "reading_sessions"
	colLibraryBooks      = "library_books"
	colCopies            = "copies"
	colLoans             = "loans"
	colCopyClaims        = "copy_claims"
	colRenewals          = "renewals"
	colStudentNumbers    = "student_numbers"
	colInvites           = "invites"
	colRedemptions       = "invite_redemptions"
	colSweepClaims       = "sweep_claims"
	colStudentImports    = "student_imports"
	colExternalIDs       = "student_external_ids"
	colRosterRollovers   = "roster_rollovers"
	colRosterJournals    = "roster_applies"
	colDepartures        = "student_departures"
	colDepartureOutcomes = "departure_outcomes"
	colMailTokens        = "mail_tokens"
	colMailTokenUses     = "mail_token_uses"
	colHolds             = "holds"
	colHoldQueue         = "hold_queue"
	colHoldTraps         = "hold_traps"
	colHoldEnds          = "hold_ends"
	colLoanEndings       = "loan_endings"
	colCharges           = "charges"
	colSettlements       = "charge_settlements"
	colStocktakes        = "stocktakes"
	colStocktakeScans    = "stocktake_scans"
	// Holdings imports run in the background and each school's one
	// running slot; both are read by _id only, so they need no index.
	colImportJobs      = "import_jobs"
	colImportJobClaims = "import_job_claims"
)

// Reminder mail: each school's notice settings, the notices (claims and
// log), the finished days, and the homerooms with their teachers.
const (
	colNoticeSettings = "notice_settings"
	colNotices        = "notices"
	colNoticeDays     = "notice_days"
	colHomerooms      = "homerooms"
)

// colExternalIdentities holds the links of accounts to subjects of
// external issuers.
const colExternalIdentities = "external_identities"

// Both timeouts are short so that, with a dead database, a request fails
// within seconds instead of waiting the driver's default 30 s.
const (
	serverSelectionTimeout = 2 * time.Second
	connectTimeout         = 2 * time.Second
)

// DB is a connected MongoDB database holding the service's collections.
type DB struct {
	client *mongo.Client
	db     *mongo.Database
}

// Connect opens a client on uri, checks that the server answers, and returns
// the database named database. Errors name the step that failed and the
// server's address, never the credentials in uri.
func Connect(ctx context.Context, uri, database string) (*DB, error) {
	return ConnectWithMonitor(ctx, uri, database, nil)
}

// ConnectWithMonitor is Connect with a command monitor on the client: m sees
// every command the repositories send (tests count them to hold each
// request to a fixed number of round trips). A nil m is Connect.
func ConnectWithMonitor(ctx context.Context, uri, database string, m *event.CommandMonitor) (*DB, error) {
	if database == "" {
		return nil, errors.New("mongorepo: database name is empty")
	}
	safe := redactURI(uri)
	opts := options.Client().
		ApplyURI(uri).
		SetServerSelectionTimeout(serverSelectionTimeout).
		SetConnectTimeout(connectTimeout)
	if m != nil {
		opts.SetMonitor(m)
	}
	client, err := mongo.Connect(opts)
	if err != nil {
		return nil, fmt.Errorf("mongorepo: invalid MongoDB URI %s: %w", safe, scrub(err, uri))
	}
	if err := client.Ping(ctx, readpref.Primary()); err != nil {
		_ = client.Disconnect(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("mongorepo: MongoDB at %s does not answer: %w", safe, scrub(err, uri))
	}
	return &DB{client: client, db: client.Database(database)}, nil
}

// Database returns the underlying database, for tests and for other stores
// of this package.
func (d *DB) Database() *mongo.Database { return d.db }

// Close disconnects the client.
func (d *DB) Close(ctx context.Context) error {
	if err := d.client.Disconnect(ctx); err != nil {
		return fmt.Errorf("mongorepo: disconnect: %w", err)
	}
	return nil
}

// Repositories returns every repository backed by this database.
func (d *DB) Repositories() ports.Repositories {
	holdings := NewHoldings(d.db)
	return ports.Repositories{
		Accounts:        NewAccounts(d.db),
		Schools:         NewSchools(d.db),
		RefreshTokens:   NewRefreshTokens(d.db),
		SigningKeys:     NewSigningKeys(d.db),
		MailTokens:      NewMailTokens(d.db),
		Books:           NewBooks(d.db),
		ReadingLists:    NewReadingLists(d.db),
		Progress:        NewProgress(d.db),
		Students:        NewStudents(d.db),
		Invites:         NewInvites(d.db),
		Holdings:        holdings,
		HoldingsImports: holdings,
		Loans:           NewLoans(d.db),
		ActiveLoans:     NewActiveLoans(d.db),
		Expiry:          NewExpiry(d.db),
		Departures:      NewDepartures(d.db),
		Holds:           NewHolds(d.db),
		Charges:         NewCharges(d.db),
		Stocktakes:      NewStocktakes(d.db),
		ImportJobs:      NewImportJobs(d.db),
		Health:          NewHealth(d.db.Client()),

		ExternalIdentities: NewExternalIdentities(d.db),
		Notices:            NewNotices(d.db),
		Homerooms:          NewNotices(d.db),
		Reports:            NewReports(d.db),
	}
}

// EnsureIndexes creates every index the repositories rely on. Creating an
// index that already exists with the same keys and options is a no-op, so it
// is safe on every start and from several replicas at once. Collections
// keyed only by _id (rotation claims, revoked families, signing keys,
// progress, student numbers, invites and their redemptions, mailed-token
// claims) need none; the expiring kinds (Expiry) get one on their expiry.
//
// It then runs the data migrations the database has not recorded (see
// migrate), so documents of earlier versions get the fields this version
// searches on.
//
// It finishes the student imports that a crash interrupted (imports.go).
//
// It also drops the unique email index of earlier versions (accounts are
// unique by email_key now; see Accounts), which would let only one account
// go without an email. A missing index is no error, so that step is
// idempotent too; no document is migrated.
//
// Indexes are created one per command: FerretDB 1.24 panics and drops the
// connection when one createIndexes command lists two or more indexes that
// all exist already (validateIndexesForCreation deletes from the slice it
// indexes), which is exactly the every-start case.
func (d *DB) EnsureIndexes(ctx context.Context) error {
	specs := []struct {
		collection string
		models     []mongo.IndexModel
	}{
		{colAccounts, []mongo.IndexModel{
			{Keys: bson.D{{Key: "email_key", Value: 1}}, Options: options.Index().SetUnique(true)},
			// ListDeleted: the accounts whose removal did not finish.
			{Keys: bson.D{{Key: "deleted", Value: 1}, {Key: "_id", Value: 1}}},
			// ListBySchool and the student list.
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "role", Value: 1}, {Key: "name", Value: 1}, {Key: "_id", Value: 1}}},
			// The student search.
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "role", Value: 1}, {Key: "search_terms", Value: 1}}},
			// A class's students (the student list and the loans of a
			// homeroom), in the student list's order.
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "role", Value: 1}, {Key: "homeroom_key", Value: 1}, {Key: "name", Value: 1}, {Key: "_id", Value: 1}}},
			// The accounts of an import batch, published or dropped at its end.
			{Keys: bson.D{{Key: "import_batch", Value: 1}}, Options: options.Index().SetSparse(true)},
		}},
		{colStudentNumbers, []mongo.IndexModel{
			{Keys: bson.D{{Key: "import_batch", Value: 1}}, Options: options.Index().SetSparse(true)},
		}},
		{colDepartures, []mongo.IndexModel{
			{Keys: bson.D{{Key: "student_id", Value: 1}, {Key: "started_at", Value: 1}, {Key: "_id", Value: 1}}},
		}},
		{colStudentImports, []mongo.IndexModel{
			{Keys: bson.D{{Key: "batch", Value: 1}}},
			{Keys: bson.D{{Key: "started_at", Value: 1}}},
		}},
		// The roster changes a crash interrupted (finishRosters).
		{colRosterJournals, []mongo.IndexModel{
			{Keys: bson.D{{Key: "started_at", Value: 1}}},
		}},
		{colSchools, []mongo.IndexModel{
			{Keys: bson.D{{Key: "domain", Value: 1}}, Options: options.Index().SetUnique(true)},
		}},
		{colRefreshTokens, []mongo.IndexModel{
			{Keys: bson.D{{Key: "account_id", Value: 1}}},
			{Keys: bson.D{{Key: "family_id", Value: 1}}},
		}},
		// DeleteByAccount.
		{colMailTokens, []mongo.IndexModel{
			{Keys: bson.D{{Key: "account_id", Value: 1}}},
		}},
		// One subject per issuer for an account (Link's insert is refused
		// past it); DeleteByAccount.
		{colExternalIdentities, []mongo.IndexModel{
			{Keys: bson.D{{Key: "account_id", Value: 1}, {Key: "issuer", Value: 1}}, Options: options.Index().SetUnique(true)},
		}},
		// One index per List shape: search, each filter in title order,
		// and each order; every order ends with sort_title and _id.
		{colBooks, []mongo.IndexModel{
			{Keys: bson.D{{Key: "search_terms", Value: 1}}},
			{Keys: bson.D{{Key: "genre", Value: 1}, {Key: "sort_title", Value: 1}, {Key: "_id", Value: 1}}},
			{Keys: bson.D{{Key: "reading_level", Value: 1}, {Key: "sort_title", Value: 1}, {Key: "_id", Value: 1}}},
			{Keys: bson.D{{Key: "sort_title", Value: 1}, {Key: "_id", Value: 1}}},
			{Keys: bson.D{{Key: "rating", Value: -1}, {Key: "sort_title", Value: 1}, {Key: "_id", Value: 1}}},
			{Keys: bson.D{{Key: "published_date", Value: -1}, {Key: "sort_title", Value: 1}, {Key: "_id", Value: 1}}},
		}},
		{colChapterTexts, []mongo.IndexModel{
			{Keys: bson.D{{Key: "book_id", Value: 1}, {Key: "position", Value: 1}}},
		}},
		{colReadingList, []mongo.IndexModel{
			{Keys: bson.D{{Key: "account_id", Value: 1}, {Key: "book_id", Value: 1}}, Options: options.Index().SetUnique(true)},
		}},
		{colReadingSessions, []mongo.IndexModel{
			{Keys: bson.D{{Key: "account_id", Value: 1}, {Key: "at", Value: 1}}},
			{Keys: bson.D{{Key: "account_id", Value: 1}, {Key: "book_id", Value: 1}}},
		}},
		// The library: see Library for the keys.
		{colLibraryBooks, []mongo.IndexModel{
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "isbn_key", Value: 1}}, Options: options.Index().SetUnique(true)},
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "title", Value: 1}, {Key: "_id", Value: 1}}},
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "search_terms", Value: 1}}},
			// An imported record's book by title and author.
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "match_key", Value: 1}}},
			// The books of a holdings import, published or dropped at its end.
			{Keys: bson.D{{Key: "import_batch", Value: 1}}, Options: options.Index().SetSparse(true)},
			// A stocktake's call-number range and the collection reports
			// (by genre, reading level and year of publication).
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "call_number", Value: 1}, {Key: "_id", Value: 1}}},
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "genre", Value: 1}, {Key: "_id", Value: 1}}},
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "reading_level", Value: 1}, {Key: "_id", Value: 1}}},
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "published_year", Value: 1}, {Key: "_id", Value: 1}}},
		}},
		{colCopies, []mongo.IndexModel{
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "code", Value: 1}}, Options: options.Index().SetUnique(true)},
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "book_id", Value: 1}, {Key: "code", Value: 1}}},
			// The copies of a holdings import, published or dropped at its end.
			{Keys: bson.D{{Key: "import_batch", Value: 1}}, Options: options.Index().SetSparse(true)},
		}},
		{colLoans, []mongo.IndexModel{
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "returned_at", Value: 1}, {Key: "loaned_at", Value: 1}}},
			{Keys: bson.D{{Key: "student_id", Value: 1}, {Key: "loaned_at", Value: 1}}},
			// A student's claimed returns (ClaimsReturned).
			{Keys: bson.D{{Key: "student_id", Value: 1}, {Key: "outcome", Value: 1}}},
			// The reports: a school's loans by the time they were made
			// (loans per month, top titles), and whether any loan names a
			// book (never-borrowed titles).
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "loaned_at", Value: 1}}},
			{Keys: bson.D{{Key: "book_id", Value: 1}}},
		}},
		// A student's charges; a school's, all or by status (Charges).
		{colCharges, []mongo.IndexModel{
			{Keys: bson.D{{Key: "student_id", Value: 1}, {Key: "created_at", Value: 1}, {Key: "_id", Value: 1}}},
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "created_at", Value: 1}, {Key: "_id", Value: 1}}},
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "status", Value: 1}, {Key: "created_at", Value: 1}, {Key: "_id", Value: 1}}},
		}},
		// A school's stocktakes, newest first; a stocktake's scans by copy
		// (Stocktakes). The report walks library_books by
		// {school_id, call_number, _id}.
		{colStocktakes, []mongo.IndexModel{
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "opened_at", Value: 1}, {Key: "_id", Value: 1}}},
		}},
		{colStocktakeScans, []mongo.IndexModel{
			{Keys: bson.D{{Key: "stocktake_id", Value: 1}, {Key: "copy_id", Value: 1}}, Options: options.Index().SetUnique(true)},
		}},
		{colCopyClaims, []mongo.IndexModel{
			{Keys: bson.D{{Key: "copy_id", Value: 1}}, Options: options.Index().SetUnique(true)},
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "book_id", Value: 1}}},
		}},
		{colRenewals, []mongo.IndexModel{
			{Keys: bson.D{{Key: "loan_id", Value: 1}, {Key: "number", Value: 1}}},
		}},
		// A loan's log; the unsent claims a stopped run left; a student's
		// notices (deleted with the account); a school's old notices
		// (deleted with the loan history).
		{colNotices, []mongo.IndexModel{
			{Keys: bson.D{{Key: "subject_id", Value: 1}, {Key: "claimed_at", Value: 1}}},
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "sent_at", Value: 1}, {Key: "claimed_at", Value: 1}}},
			{Keys: bson.D{{Key: "student_id", Value: 1}}},
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "claimed_at", Value: 1}}},
		}},
		{colHomerooms, []mongo.IndexModel{
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "key", Value: 1}}},
		}},
		// Holds: see Holds for the keys.
		{colHolds, []mongo.IndexModel{
			{Keys: bson.D{{Key: "student_id", Value: 1}, {Key: "placed_at", Value: 1}, {Key: "_id", Value: 1}}},
		}},
		{colHoldQueue, []mongo.IndexModel{
			{Keys: bson.D{{Key: "student_id", Value: 1}, {Key: "book_id", Value: 1}}, Options: options.Index().SetUnique(true)},
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "book_id", Value: 1}, {Key: "placed_at", Value: 1}, {Key: "_id", Value: 1}}},
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "placed_at", Value: 1}, {Key: "_id", Value: 1}}},
		}},
		{colHoldTraps, []mongo.IndexModel{
			{Keys: bson.D{{Key: "copy_id", Value: 1}}, Options: options.Index().SetUnique(true)},
			{Keys: bson.D{{Key: "hold_id", Value: 1}}, Options: options.Index().SetUnique(true)},
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "book_id", Value: 1}}},
			{Keys: bson.D{{Key: "expires_at", Value: 1}, {Key: "_id", Value: 1}}},
		}},
	}
	// The expiry sweep's finds: one index per kind on its expiry.
	for _, k := range expiringKinds {
		specs = append(specs, struct {
			collection string
			models     []mongo.IndexModel
		}{k.collection, []mongo.IndexModel{{Keys: bson.D{{Key: k.field, Value: 1}}}}})
	}
	if err := d.dropLegacyIndex(ctx, colAccounts, legacyEmailIndex); err != nil {
		return err
	}
	for _, s := range specs {
		for _, m := range s.models {
			if _, err := d.db.Collection(s.collection).Indexes().CreateOne(ctx, m); err != nil {
				return fmt.Errorf("mongorepo: create index on %s: %w", s.collection, mapErr(err, "create indexes", nil, nil))
			}
		}
	}
	if err := d.migrate(ctx); err != nil {
		return err
	}
	// Student imports a crash interrupted (imports.go).
	if err := finishImports(ctx, d.db, time.Now().Add(-staleImport)); err != nil {
		return fmt.Errorf("mongorepo: finish interrupted student imports: %w", err)
	}
	// Roster changes a crash interrupted (roster.go), once their imports
	// are settled.
	if err := finishRosters(ctx, d.db, time.Now().Add(-staleImport)); err != nil {
		return fmt.Errorf("mongorepo: finish interrupted roster changes: %w", err)
	}
	return nil
}

// legacyEmailIndex is the name of the unique email index of earlier
// versions, replaced by the one on email_key.
const legacyEmailIndex = "email_1"

// Server codes for "nothing to drop".
const (
	codeNamespaceNotFound = 26 // MongoDB: the collection does not exist
	codeIndexNotFound     = 27
)

// dropLegacyIndex drops index name of collection if it exists.
func (d *DB) dropLegacyIndex(ctx context.Context, collection, name string) error {
	err := d.db.Collection(collection).Indexes().DropOne(ctx, name)
	var se mongo.ServerError
	if err == nil || (errors.As(err, &se) && (se.HasErrorCode(codeIndexNotFound) || se.HasErrorCode(codeNamespaceNotFound))) {
		return nil
	}
	return fmt.Errorf("mongorepo: drop index %s on %s: %w", name, collection, mapErr(err, "drop an old index", nil, nil))
}

// Health is the ports.Pinger of a MongoDB client.
type Health struct {
	client *mongo.Client
}

// NewHealth returns a Pinger for client. It panics on nil, a wiring bug.
func NewHealth(client *mongo.Client) *Health {
	if client == nil {
		panic("mongorepo: NewHealth: nil client")
	}
	return &Health{client: client}
}

// Ping implements ports.Pinger. Any failure means the database cannot serve
// requests, so every error is Unavailable.
func (h *Health) Ping(ctx context.Context) error {
	if err := h.client.Ping(ctx, readpref.Primary()); err != nil {
		return errUnavailable(err)
	}
	return nil
}

// redactURI returns uri without user info and query (which may carry
// credentials such as tlsCertificateKeyFilePassword), for error messages.
func redactURI(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Host == "" {
		return "(unparsable URI)"
	}
	return u.Scheme + "://" + u.Host + "/"
}

// scrub removes the URI's secrets (password, and option values such as
// tlsCertificateKeyFilePassword) from err's text, in case a driver error
// quotes part of the URI. When uri cannot be parsed its secrets are unknown,
// so the driver's text is withheld.
func scrub(err error, uri string) error {
	u, perr := url.Parse(uri)
	if perr != nil {
		return errors.New("the URI is malformed (details withheld: they may contain credentials)")
	}
	var secrets []string
	if pw, ok := u.User.Password(); ok && pw != "" {
		secrets = append(secrets, pw)
	}
	for key, values := range u.Query() {
		k := strings.ToLower(key)
		if strings.Contains(k, "password") || strings.Contains(k, "secret") || strings.Contains(k, "token") || k == "authmechanismproperties" {
			secrets = append(secrets, values...)
		}
	}
	msg := err.Error()
	for _, s := range secrets {
		if s != "" && strings.Contains(msg, s) {
			msg = strings.ReplaceAll(msg, s, "xxxxx")
		}
	}
	if msg == err.Error() {
		return err
	}
	return errors.New(msg)
}
