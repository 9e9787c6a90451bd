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
	"slices"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"

	"github.com/readinglibrary/service/ports"
)

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
	r := ports.Repositories{Health: NewHealth(d.db.Client())}
	for _, e := range entities {
		if e.repositories != nil {
			e.repositories(d.db, &r)
		}
	}
	return r
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
	if err := d.dropLegacyIndex(ctx, colAccounts, legacyEmailIndex); err != nil {
		return err
	}
	specs := collections()
	// The expiry sweep's finds: one index per kind on its expiry.
	for _, k := range expiringKinds() {
		specs = append(specs, collection{k.collection, []mongo.IndexModel{{Keys: bson.D{{Key: k.field, Value: 1}}}}})
	}
	for _, c := range specs {
		for _, m := range c.indexes {
			// The driver names an index by calling SetName on the model's
			// options: each call gets its own copy of the registered ones,
			// which every start (and replicas in one process) share.
			if m.Options != nil {
				m.Options = &options.IndexOptionsBuilder{Opts: slices.Clone(m.Options.Opts)}
			}
			if _, err := d.db.Collection(c.name).Indexes().CreateOne(ctx, m); err != nil {
				return fmt.Errorf("mongorepo: create index on %s: %w", c.name, mapErr(err, "create indexes", nil, nil))
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
