// Package mongotest gives tests a MongoDB-compatible server and a fresh
// database on it. The server is chosen once per test binary:
//
//   - LIBRARY_TEST_MONGODB_URI set: that server ("uri");
//   - LIBRARY_TEST_MONGO=container: a testcontainers MongoDB replica set
//     ("container") of the image LIBRARY_TEST_MONGO_IMAGE (default mongo:7):
//     the backend that proves fidelity to real MongoDB;
//   - LIBRARY_TEST_MONGO=ferretdb: the locally built FerretDB image
//     (readinglibrary/ferretdb:local), a MongoDB wire server reached from
//     outside the process as QA reaches it, on machines with no registry;
//   - otherwise: an embedded FerretDB in a temporary directory
//     ("embedded-ferretdb").
//
// Without a Docker engine every test that asks for a container backend
// fails, since the run asked for it by name.
//
// It is an ordinary package, not a _test one, so the end-to-end tests can use
// it too. Packages that want the shared server stopped and its files removed
// at the end call Main from TestMain; otherwise the process exit ends it.
//
// As part of adapters/mongorepo it may import that adapter, ports, the core
// packages and outside libraries, but no other adapter and nothing under cmd
// (the layer rules of test/architecture_test.go).
package mongotest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/modules/mongodb"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/readinglibrary/service/adapters/mongorepo"
	"github.com/readinglibrary/service/adapters/mongorepo/mongotest/ferret"
	"github.com/readinglibrary/service/test/containers"
)

// Environment variables that select the backend.
const (
	EnvURI     = "LIBRARY_TEST_MONGODB_URI"
	EnvBackend = "LIBRARY_TEST_MONGO"
	// EnvImage names the MongoDB image of the "container" backend, so a QA
	// team can point it at their own registry's copy.
	EnvImage = "LIBRARY_TEST_MONGO_IMAGE"
)

// DefaultImage is the "container" backend's image when EnvImage is unset.
const DefaultImage = "mongo:7"

// Backend names, as Backend reports them.
const (
	BackendEmbedded  = "embedded-ferretdb"
	BackendURI       = "uri"
	BackendContainer = "container"
	// BackendFerretDBContainer is LIBRARY_TEST_MONGO's value for the FerretDB
	// image.
	BackendFerretDBContainer = "ferretdb"
)

const (
	startTimeout = 3 * time.Minute // a first container pull can be slow
	opTimeout    = 30 * time.Second
)

// shared is the one server of this test binary. Its lifetime is the
// process's, never a test's, so one test's Cleanup cannot stop it under the
// next.
var shared struct {
	once  sync.Once
	uri   string
	err   error
	admin *mongo.Client // drops the test databases
	stop  func()

	mu        sync.Mutex
	closed    bool     // Shutdown ran
	templates []string // NewTemplate's databases not yet dropped
}

// Backend returns the name of the backend the environment selects.
func Backend() string {
	if os.Getenv(EnvURI) != "" {
		return BackendURI
	}
	switch os.Getenv(EnvBackend) {
	case BackendContainer:
		return BackendContainer
	case BackendFerretDBContainer:
		return BackendFerretDBContainer
	}
	// A service in a container cannot reach the in-process server (it may
	// listen on this process's socket), so the end-to-end run against the
	// service image takes FerretDB's image unless told otherwise.
	if os.Getenv("LIBRARY_TEST_TARGET") == "container" {
		return BackendFerretDBContainer
	}
	return BackendEmbedded
}

// URI returns the connection string of the shared server, starting it on
// first use. It fails tb when the server cannot be had.
func URI(tb testing.TB) string {
	tb.Helper()
	uri, _ := server(tb)
	return uri
}

func server(tb testing.TB) (string, *mongo.Client) {
	tb.Helper()
	shared.once.Do(func() {
		shared.uri, shared.stop, shared.err = start()
		if shared.err != nil {
			return
		}
		shared.admin, shared.err = mongo.Connect(options.Client().ApplyURI(shared.uri))
	})
	if shared.err != nil {
		tb.Fatalf("mongotest: %s backend: %v", Backend(), shared.err)
	}
	shared.mu.Lock()
	closed := shared.closed
	shared.mu.Unlock()
	if closed {
		tb.Fatalf("mongotest: the shared server was already stopped by Shutdown")
	}
	return shared.uri, shared.admin
}

func start() (uri string, stop func(), err error) {
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	switch Backend() {
	case BackendURI:
		return os.Getenv(EnvURI), func() {}, nil
	case BackendContainer:
		return startContainer(ctx)
	case BackendFerretDBContainer:
		return startFerretDBContainer(ctx)
	}
	dir, err := os.MkdirTemp("", "mongotest-")
	if err != nil {
		return "", nil, err
	}
	s, err := ferret.Start(ctx, ferret.Options{DataDir: dir})
	if err != nil {
		_ = os.RemoveAll(dir)
		return "", nil, err
	}
	return s.URI(), func() { s.Stop(); _ = os.RemoveAll(dir) }, nil
}

// Image returns the "container" backend's MongoDB image.
func Image() string {
	if im := os.Getenv(EnvImage); im != "" {
		return im
	}
	return DefaultImage
}

// startContainer runs the MongoDB image as a one-member replica set. A run
// that asked for the container fails rather than skips without an engine.
func startContainer(ctx context.Context) (uri string, stop func(), err error) {
	if err := containers.EngineErr(); err != nil {
		return "", nil, fmt.Errorf("%s=%s needs a Docker engine and none answered: %v", EnvBackend, BackendContainer, err)
	}
	image := Image()
	ctr, err := mongodb.Run(ctx, image, mongodb.WithReplicaSet("rs0"))
	stop = terminate(ctr)
	if err != nil {
		stop()
		return "", nil, fmt.Errorf("start %s container (set %s to a copy your registry serves): %w", image, EnvImage, err)
	}
	cs, err := ctr.ConnectionString(ctx)
	if err != nil {
		stop()
		return "", nil, fmt.Errorf("container connection string: %w", err)
	}
	// The member is registered under the container's own address, which the
	// host often cannot reach; a direct connection skips that discovery.
	uri, err = withQuery(cs, "directConnection", "true")
	if err != nil {
		stop()
		return "", nil, err
	}
	return uri, stop, nil
}

// terminate is the stop of a started container. A failed start may leave
// ctr nil, which TerminateContainer ignores.
func terminate(ctr testcontainers.Container) func() {
	return func() { _ = testcontainers.TerminateContainer(ctr) }
}

// testFerretDBEnv tunes the test server's Go runtime. FerretDB decodes
// every document a query reads into Go values (it pushes down to SQLite
// only a filter of _id alone), and collecting that garbage was much of its
// CPU at Go's default GOGC of 100. Three end-to-end tests on MongoDB
// (the role matrix, concurrency, the OpenAPI answers) took 55 to 61 CPU-s
// of the machine at GOGC=100 and 41 at 400, for a larger heap of a server
// that holds only test data.
var testFerretDBEnv = map[string]string{"GOGC": "400"}

// startFerretDBContainer runs the locally built FerretDB image with its port
// published and waits until it answers a ping. The image has no shell, so
// readiness is checked from here with the driver.
func startFerretDBContainer(ctx context.Context) (uri string, stop func(), err error) {
	if err := containers.ImageErr(containers.FerretDB); err != nil {
		return "", nil, fmt.Errorf("%s=%s: %w", EnvBackend, BackendFerretDBContainer, err)
	}
	ctr, err := testcontainers.GenericContainer(ctx, testcontainers.GenericContainerRequest{
		ContainerRequest: testcontainers.ContainerRequest{
			Image: containers.FerretDB, ExposedPorts: []string{"27017/tcp"},
			// The tests' databases are thrown away: kept in memory, the
			// database each test makes and drops costs no disk writes
			// and no syncs.
			Tmpfs: map[string]string{"/data": "uid=65532,gid=65532,mode=0700"},
			Env:   testFerretDBEnv,
			// Readiness is the driver's ping below.
			ConfigModifier: containers.NoHealthcheck,
		},
		Started: true,
	})
	stop = terminate(ctr)
	if err != nil {
		stop()
		return "", nil, fmt.Errorf("start %s: %w", containers.FerretDB, err)
	}
	ep, err := ctr.PortEndpoint(ctx, "27017/tcp", "mongodb")
	if err != nil {
		stop()
		return "", nil, err
	}
	uri = ep + "/"
	if err := pingUntil(ctx, uri); err != nil {
		logs := containers.Logs(ctr)
		stop()
		return "", nil, fmt.Errorf("%s never answered: %w; logs:\n%s", containers.FerretDB, err, logs)
	}
	return uri, stop, nil
}

// pingUntil pings uri until it answers or ctx ends.
func pingUntil(ctx context.Context, uri string) error {
	c, err := mongo.Connect(options.Client().ApplyURI(uri).SetServerSelectionTimeout(2 * time.Second))
	if err != nil {
		return err
	}
	defer func() { _ = c.Disconnect(context.Background()) }()
	for {
		err := c.Ping(ctx, nil)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// withQuery sets one option on a MongoDB URI, keeping the others.
func withQuery(uri, key, value string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("parse connection string: %w", err)
	}
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	if u.Path == "" {
		u.Path = "/" // the driver wants "/" before the options
	}
	return u.String(), nil
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_]+`)

// NewDatabase returns the shared server's URI and the name of a database no
// other test uses. The database is dropped when tb ends.
func NewDatabase(tb testing.TB) (uri, name string) {
	tb.Helper()
	uri, admin := server(tb)

	name = databaseName(tb.Name())
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
		defer cancel()
		if err := admin.Database(name).Drop(ctx); err != nil {
			tb.Errorf("mongotest: drop database %s: %v", name, err)
		}
	})
	return uri, name
}

// databaseName is a database name no other test uses, readable by its
// label. Database names are short on MongoDB (64 bytes) and become file
// names on FerretDB/SQLite, so it keeps a readable prefix and a random
// suffix.
func databaseName(label string) string {
	prefix := strings.Trim(unsafeName.ReplaceAllString(label, "_"), "_")
	if len(prefix) > 40 {
		prefix = prefix[len(prefix)-40:]
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	return strings.ToLower("t_" + prefix + "_" + hex.EncodeToString(b[:]))
}

// NewTemplate returns the shared server's URI and the name of a new
// database that outlives tb: one that is set up once and copied into many
// tests' databases (CopyDatabase). DropTemplate drops it; Shutdown drops
// those still there.
func NewTemplate(tb testing.TB, label string) (uri, name string) {
	tb.Helper()
	uri, _ = server(tb)
	name = databaseName("template_" + label)
	shared.mu.Lock()
	shared.templates = append(shared.templates, name)
	shared.mu.Unlock()
	return uri, name
}

// DropTemplate drops a database NewTemplate named.
func DropTemplate(name string) error {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	for i, n := range shared.templates {
		if n == name {
			shared.templates = append(shared.templates[:i], shared.templates[i+1:]...)
			return dropDatabase(name)
		}
	}
	return fmt.Errorf("mongotest: %s is not a template database", name)
}

// dropDatabase drops name on the shared server; shared.mu is held.
func dropDatabase(name string) error {
	if shared.admin == nil || shared.closed {
		return nil // no server was started, or it has been stopped with its databases
	}
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	return shared.admin.Database(name).Drop(ctx)
}

// CopyDatabase makes the empty database to a copy of from on the shared
// server: every collection, with its indexes as listIndexes describes them
// and its documents. It is a test's cheap start on a database a service
// has already set up.
func CopyDatabase(tb testing.TB, from, to string) {
	tb.Helper()
	_, admin := server(tb)
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	if err := copyDatabase(ctx, admin.Database(from), admin.Database(to)); err != nil {
		tb.Fatalf("mongotest: copy database %s to %s: %v", from, to, err)
	}
}

// IsEmpty reports whether the database name holds no collection: whether
// no service has started on it yet.
func IsEmpty(tb testing.TB, name string) bool {
	tb.Helper()
	_, admin := server(tb)
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	names, err := admin.Database(name).ListCollectionNames(ctx, bson.D{})
	if err != nil {
		tb.Fatalf("mongotest: list the collections of %s: %v", name, err)
	}
	return len(names) == 0
}

// copyBatch is the number of documents one insert carries, well under the
// 16 MB a command may hold for the small documents a school's set-up makes.
const copyBatch = 500

func copyDatabase(ctx context.Context, src, dst *mongo.Database) error {
	names, err := src.ListCollectionNames(ctx, bson.D{})
	if err != nil {
		return err
	}
	for _, coll := range names {
		if err := dst.CreateCollection(ctx, coll); err != nil {
			return fmt.Errorf("create %s: %w", coll, err)
		}
		if err := copyIndexes(ctx, src.Collection(coll), dst, coll); err != nil {
			return fmt.Errorf("indexes of %s: %w", coll, err)
		}
		cur, err := src.Collection(coll).Find(ctx, bson.D{})
		if err != nil {
			return fmt.Errorf("read %s: %w", coll, err)
		}
		batch := make([]any, 0, copyBatch)
		flush := func() error {
			if len(batch) == 0 {
				return nil
			}
			_, err := dst.Collection(coll).InsertMany(ctx, batch)
			batch = batch[:0]
			return err
		}
		for cur.Next(ctx) {
			batch = append(batch, bson.Raw(append([]byte(nil), cur.Current...)))
			if len(batch) == copyBatch {
				if err := flush(); err != nil {
					_ = cur.Close(ctx)
					return fmt.Errorf("write %s: %w", coll, err)
				}
			}
		}
		if err := cur.Err(); err != nil {
			_ = cur.Close(ctx)
			return fmt.Errorf("read %s: %w", coll, err)
		}
		_ = cur.Close(ctx)
		if err := flush(); err != nil {
			return fmt.Errorf("write %s: %w", coll, err)
		}
	}
	return nil
}

// copyIndexes creates on dst's collection coll the indexes of src other than
// _id's, with the options listIndexes gives (unique, sparse and the rest),
// in one createIndexes command.
func copyIndexes(ctx context.Context, src *mongo.Collection, dst *mongo.Database, coll string) error {
	cur, err := src.Indexes().List(ctx)
	if err != nil {
		return err
	}
	var specs bson.A
	for cur.Next(ctx) {
		var spec bson.D
		if err := bson.Unmarshal(cur.Current, &spec); err != nil {
			_ = cur.Close(ctx)
			return err
		}
		keep := spec[:0]
		isID := false
		for _, e := range spec {
			switch e.Key {
			case "v", "ns": // the server's own fields, not options
				continue
			case "name":
				isID = e.Value == "_id_"
			}
			keep = append(keep, e)
		}
		if !isID {
			specs = append(specs, keep)
		}
	}
	if err := cur.Err(); err != nil {
		_ = cur.Close(ctx)
		return err
	}
	_ = cur.Close(ctx)
	if len(specs) == 0 {
		return nil
	}
	return dst.RunCommand(ctx, bson.D{{Key: "createIndexes", Value: coll}, {Key: "indexes", Value: specs}}).Err()
}

// NewDB returns a connected *mongorepo.DB on a fresh database with every
// index in place. It is closed and the database dropped when tb ends.
func NewDB(tb testing.TB) *mongorepo.DB {
	tb.Helper()
	return NewDBWithMonitor(tb, nil)
}

// NewDBWithMonitor is NewDB with m watching the client's commands (see
// CommandCounter). The indexes are created through the same client, so
// reset a counter before measuring.
func NewDBWithMonitor(tb testing.TB, m *event.CommandMonitor) *mongorepo.DB {
	tb.Helper()
	uri, name := NewDatabase(tb)
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	db, err := mongorepo.ConnectWithMonitor(ctx, uri, name, m)
	if err != nil {
		tb.Fatalf("mongotest: %v", err)
	}
	// Registered after NewDatabase's drop, so it runs before it.
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
		defer cancel()
		if err := db.Close(ctx); err != nil {
			tb.Errorf("mongotest: %v", err)
		}
	})
	if err := db.EnsureIndexes(ctx); err != nil {
		tb.Fatalf("mongotest: %v", err)
	}
	return db
}

// Shutdown stops the shared server if this process started one and removes
// its files. Later calls to URI fail. Safe to call when nothing was started.
func Shutdown() {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.closed {
		return
	}
	// A server of another's (LIBRARY_TEST_MONGODB_URI) outlives the run.
	for _, name := range shared.templates {
		if err := dropDatabase(name); err != nil {
			fmt.Fprintf(os.Stderr, "mongotest: drop template database %s: %v\n", name, err)
		}
	}
	shared.templates = nil
	shared.closed = true
	// Consume the once so that no test can start a server after this.
	shared.once.Do(func() { shared.err = errors.New("mongotest: Shutdown was called") })
	if shared.admin != nil {
		ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
		_ = shared.admin.Disconnect(ctx)
		cancel()
	}
	if shared.stop != nil {
		shared.stop()
	}
}

// Main runs the tests of m, then Shutdown, and returns the exit code:
//
//	func TestMain(m *testing.M) { os.Exit(mongotest.Main(m)) }
func Main(m *testing.M) int {
	code := m.Run()
	Shutdown()
	return code
}
