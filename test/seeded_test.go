package test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/readinglibrary/service/adapters/mongorepo/mongotest"
	"github.com/readinglibrary/service/adapters/passwordhash"
	"github.com/readinglibrary/service/cmd/libraryd/app"
)

// Most tests start their service on the same thing: a new store with the
// demo school. Setting that up (applying every migration or creating every
// index on an empty store, generating the signing key, hashing the demo
// accounts' password and adding the demo books) is most of a start's CPU:
// about 2.5 s of it under the race detector and 0.7 s in the service image
// on the embedded store, and on MongoDB a service image's start on a new
// FerretDB database took 1.35 s against 0.5 s on a copy. Those tests start
// instead on a copy of one such store, set up by a service started and
// closed in this process on the same configuration, so the start they see
// is that of a school's existing store:
//
//   - on the embedded store, a copy of the set-up data directory's files;
//     the service image starts on it too, as the data directory is
//     mounted into the container at the same path;
//   - on MongoDB, a copy of a template database on the same server, its
//     collections, indexes and documents (mongotest.CopyDatabase).
//
// A first start on an empty store is still run: by the service that sets
// up the copy, and by every test whose start could differ (its own data
// directory or keys, no demo data, a bootstrap admin, app options) and the
// tests of a first start (firstStartEnv).
//
// There is one seeded school per store and way of hashing: the cheap
// hasher of the in-process tests, and the production parameters, which the
// image always uses and productionHashing asks for.
var (
	seeded      [2]seededSchool // embedded store: data directories
	seededMongo [2]seededSchool // MongoDB: template databases
)

type seededSchool struct {
	sync.Mutex
	dir  string // library.db and secret.key, as the setting-up service left them
	db   string // or the template database on MongoDB
	slot int64  // the quarter hour (UTC) it was set up in
}

const (
	seededCheap      = 0
	seededProduction = 1
)

// seededFiles are the files a closed embedded store leaves in its data
// directory that make up the school.
var seededFiles = []string{"library.db", "secret.key"}

// testStores are the stores testEnv made (by storeKey), which are empty
// until a service starts on them.
var testStores sync.Map

// storeKey names the store a service started with env uses: its MongoDB
// database or its data directory.
func storeKey(env map[string]string) string {
	if db := env["LIBRARY_MONGODB_DATABASE"]; env["LIBRARY_MONGODB_URI"] != "" && db != "" {
		return "mongodb:" + db
	}
	return env["LIBRARY_DATA_DIR"]
}

// firstStartEnv is testEnv for a test of what a first start on an empty
// store does: its service never starts on the seeded copy.
func firstStartEnv(t *testing.T, overrides map[string]string) map[string]string {
	t.Helper()
	env := testEnv(t, overrides)
	testStores.Delete(storeKey(env))
	return env
}

// startsSeeded reports whether a service started with env and opts would
// set up the demo school on an empty store of testEnv's, so it may start on
// a copy of the seeded one instead.
func startsSeeded(t *testing.T, env map[string]string, opts []app.Option) bool {
	if len(opts) > 0 || env["LIBRARY_DEMO_DATA"] != "true" {
		return false
	}
	if _, ok := testStores.Load(storeKey(env)); !ok {
		return false
	}
	for _, k := range []string{"LIBRARY_BOOTSTRAP_ADMIN_EMAIL", "LIBRARY_SECRET_KEY_FILE", "LIBRARY_SECRET_KEY_PREVIOUS_FILE", "LIBRARY_SIGNING_KEY_FILE"} {
		if env[k] != "" {
			return false
		}
	}
	if testStore() == "mongo" {
		// The template's signing key is sealed with the tests' secret key.
		return env["LIBRARY_SECRET_KEY"] == testSecretKey && mongotest.IsEmpty(t, env["LIBRARY_MONGODB_DATABASE"])
	}
	if env["LIBRARY_SECRET_KEY"] != "" {
		return false
	}
	entries, err := os.ReadDir(env["LIBRARY_DATA_DIR"])
	return err == nil && len(entries) == 0
}

// seededKind is the seeded school that matches how t's services hash.
func seededKind(t *testing.T) int {
	if testTarget() == "container" {
		return seededProduction
	}
	if _, ok := productionHashers.Load(t); ok {
		return seededProduction
	}
	return seededCheap
}

// Every in-process service of the tests hashes passwords with Argon2id at
// cheapHashParams (64 KiB, one pass) instead of the production 19 MiB and
// two: the same hashing code, at a fraction of the CPU. Signing in was a
// fifth of the MongoDB run's CPU, and the demo school and its sign-ins need
// a dozen hashes a test. A test of what is stored with the production
// parameters calls productionHashing; the container suites run the image
// with them throughout.
var productionHashers sync.Map // *testing.T → true

// productionHashing makes the services t starts hash with the production
// parameters; they start on the seeded school whose demo accounts were
// hashed with them.
func productionHashing(t *testing.T) {
	productionHashers.Store(t, true)
	t.Cleanup(func() { productionHashers.Delete(t) })
}

// withTestHasher is opts with the cheap hasher first, so a test's own
// hasher option, applied later, wins.
func withTestHasher(t *testing.T, opts []app.Option) []app.Option {
	if _, ok := productionHashers.Load(t); ok {
		return opts
	}
	return append([]app.Option{cheapHasher()}, opts...)
}

// cheapHasher is the option that gives a service the cheap hasher.
func cheapHasher() app.Option {
	return app.WithPasswordHasher(passwordhash.NewWithParams(cheapHashParams))
}

// copySeeded fills env's empty store with the seeded school of the given
// kind, setting it up first if there is none yet or it was set up in
// another quarter hour. The demo data's dates are relative to the day it
// was made; every time zone's offset is a whole number of quarter hours, so
// within one no school's date can have changed.
func copySeeded(t *testing.T, kind int, env map[string]string) {
	t.Helper()
	onMongo := testStore() == "mongo"
	sd := &seeded[kind]
	if onMongo {
		sd = &seededMongo[kind]
	}
	sd.Lock()
	defer sd.Unlock()
	slot := time.Now().UTC().Unix() / (15 * 60)
	if (sd.dir == "" && sd.db == "") || sd.slot != slot {
		sd.remove()
		if onMongo {
			uri, name := mongotest.NewTemplate(t, fmt.Sprintf("seeded_%d", kind))
			sd.db = name
			store := map[string]string{"LIBRARY_MONGODB_URI": uri, "LIBRARY_MONGODB_DATABASE": name, "LIBRARY_SECRET_KEY": testSecretKey}
			if err := setUpSeeded(store, t.TempDir(), kind); err != nil {
				sd.remove()
				t.Fatalf("set up the seeded demo school: %v", err)
			}
		} else {
			dir, err := os.MkdirTemp("", "libraryd-seeded-")
			if err != nil {
				t.Fatal(err)
			}
			sd.dir = dir
			if err := setUpSeeded(map[string]string{"LIBRARY_DATA_DIR": dir}, filepath.Join(dir, "uploads"), kind); err != nil {
				sd.remove()
				t.Fatalf("set up the seeded demo school: %v", err)
			}
			// A cleanly closed store has folded its write-ahead log into the file.
			if _, err := os.Stat(filepath.Join(dir, "library.db-wal")); err == nil {
				sd.remove()
				t.Fatal("set up the seeded demo school: library.db-wal is still there after the service closed")
			}
		}
		sd.slot = slot
	}
	if onMongo {
		mongotest.CopyDatabase(t, sd.db, env["LIBRARY_MONGODB_DATABASE"])
		return
	}
	for _, name := range seededFiles {
		if err := copyFile(filepath.Join(sd.dir, name), filepath.Join(env["LIBRARY_DATA_DIR"], name)); err != nil {
			t.Fatalf("copy the seeded demo school: %v", err)
		}
	}
}

// setUpSeeded starts a service on the empty store that store's variables
// name, with testEnv's defaults, and closes it, which leaves the demo
// school there.
func setUpSeeded(store map[string]string, uploads string, kind int) error {
	env := withLocalOutbound(map[string]string{
		"LIBRARY_DEMO_DATA": "true", "LIBRARY_COOKIE_SECURE": "false", "LIBRARY_SIGNUP": "open",
		"LIBRARY_UPLOAD_DIR": uploads, "LIBRARY_ADDR": "127.0.0.1:0", "LIBRARY_METRICS_ADDR": "off",
	})
	for k, v := range store {
		env[k] = v
	}
	cfg, err := app.LoadConfig(func(k string) string { return env[k] })
	if err != nil {
		return err
	}
	var opts []app.Option
	if kind == seededCheap {
		opts = append(opts, cheapHasher())
	}
	a, err := app.New(context.Background(), cfg, slog.New(slog.NewJSONHandler(io.Discard, nil)), opts...)
	if err != nil {
		return err
	}
	return a.Close(context.Background())
}

// removeSeeded removes the seeded directories and template databases;
// TestMain calls it at the end, before mongotest's Shutdown would drop the
// templates anyway.
func removeSeeded() {
	for i := range seeded {
		seeded[i].remove()
		seededMongo[i].remove()
	}
}

// remove removes the seeded directory or template database, if there is
// one.
func (sd *seededSchool) remove() {
	if sd.dir != "" {
		_ = os.RemoveAll(sd.dir)
		sd.dir = ""
	}
	if sd.db != "" {
		_ = mongotest.DropTemplate(sd.db)
		sd.db = ""
	}
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, info.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}
