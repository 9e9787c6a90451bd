// Package ferret runs FerretDB 1.24 with its SQLite backend inside the
// process: the MongoDB adapter's test backend, so its contract suites and
// the end-to-end suite run on a MongoDB wire-protocol server without Docker
// or mongod. It pulls in a heavy dependency tree (pgx, mongo-driver v1,
// FerretDB's own SQLite engine), so only tests and the load generator
// import it; the service binary never does.
//
// As part of adapters/mongorepo it may import that adapter, ports, the core
// packages and outside libraries, but no other adapter and nothing under cmd
// (the layer rules of test/architecture_test.go).
package ferret

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
)

// Options configure Start.
type Options struct {
	// DataDir holds the SQLite files, one per database. It is created with
	// mode 0700 when missing; data survives restarts on the same directory.
	DataDir string
	// Addr is an optional TCP listener such as "127.0.0.1:27017" for mongosh
	// or Compass. When set, URI points at it.
	Addr string
	// Logger receives FerretDB's errors; nil discards them. Messages below
	// Error are always dropped, because FerretDB warns on every endSessions
	// a driver sends when it disconnects.
	Logger *slog.Logger
}

// socketName is the Unix socket's file inside DataDir. The driver only
// treats a host as a socket path when it ends in ".sock".
const socketName = "ferretdb.sock"

// maxSocketPath keeps below the sun_path limit of Linux (108) and macOS (104)
// including the terminating NUL.
const maxSocketPath = 100

// pingTimeout bounds how long Start waits for the new server to answer when
// ctx has no earlier deadline.
const pingTimeout = 15 * time.Second

// newMu serialises ferretdb.New, which writes package-level state
// (version.Get().Package) without a lock.
var newMu sync.Mutex

// Server is a running embedded FerretDB.
type Server struct {
	uri      string
	cancel   context.CancelFunc
	done     chan struct{}
	stopOnce sync.Once
}

// Start runs FerretDB on opts.DataDir and returns once it answers a ping.
// The server outlives ctx, which only bounds the start-up; call Stop to end
// it.
func Start(ctx context.Context, opts Options) (*Server, error) {
	if opts.DataDir == "" {
		return nil, errors.New("ferret: data dir is required (Options.DataDir)")
	}
	dir, err := filepath.Abs(opts.DataDir)
	if err != nil {
		return nil, fmt.Errorf("ferret: data dir %q: %w", opts.DataDir, err)
	}
	// FerretDB turns the directory into SQLite URIs without escaping it, so
	// these would end or rewrite the path.
	if strings.ContainsAny(dir, "?#%") {
		return nil, fmt.Errorf("ferret: data dir %q must not contain '?', '#' or '%%'", dir)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("ferret: data dir %q cannot be created: %w", dir, err)
	}
	if fi, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("ferret: data dir %q: %w", dir, err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("ferret: data dir %q is not a directory", dir)
	}

	listener := ferretdb.ListenerConfig{TCP: opts.Addr}
	socket := filepath.Join(dir, socketName)
	if len(socket) < maxSocketPath {
		if err := removeStaleSocket(socket); err != nil {
			return nil, err
		}
		listener.Unix = socket
	} else if listener.TCP == "" {
		listener.TCP = "127.0.0.1:0"
	}

	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	cfg := &ferretdb.Config{
		Listener:  listener,
		Logger:    slog.New(minLevel{h: logger.Handler(), min: slog.LevelError}),
		Handler:   "sqlite",
		SQLiteURL: "file:" + (&url.URL{Path: dir + "/"}).EscapedPath(),
	}
	newMu.Lock()
	f, err := ferretdb.New(cfg)
	newMu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("ferret: start FerretDB on %q: %w", dir, err)
	}

	runCtx, cancel := context.WithCancel(context.Background())
	s := &Server{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		_ = f.Run(runCtx) // only ever returns nil
	}()
	// MongoDBURI may deadlock before Run has started listening (see its
	// doc comment), hence only now.
	if listener.TCP != "" {
		s.uri = f.MongoDBURI()
	} else {
		s.uri = "mongodb://" + url.PathEscape(socket) + "/"
	}

	if err := ping(ctx, s.uri); err != nil {
		s.Stop()
		return nil, fmt.Errorf("ferret: FerretDB on %q does not answer: %w", dir, err)
	}
	return s, nil
}

// URI returns the connection string of the server: the TCP listener when
// Options.Addr was set or the socket path would be too long, otherwise the
// Unix socket in DataDir (percent-encoded, as the driver expects).
func (s *Server) URI() string { return s.uri }

// Stop ends the server and returns once its listeners are closed and its
// SQLite files released. FerretDB gives connected clients up to 3 s to
// disconnect first. Stop is idempotent.
func (s *Server) Stop() {
	s.stopOnce.Do(func() {
		s.cancel()
		<-s.done
	})
}

// removeStaleSocket deletes a socket file left behind by a process that died
// without closing it, but refuses to touch one a live server still answers on.
func removeStaleSocket(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("ferret: socket %q: %w", path, err)
	}
	if fi.Mode()&os.ModeSocket == 0 {
		return fmt.Errorf("ferret: %q exists and is not a socket", path)
	}
	if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
		_ = c.Close()
		return fmt.Errorf("ferret: another server is already listening on %q", path)
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("ferret: remove stale socket %q: %w", path, err)
	}
	return nil
}

func ping(ctx context.Context, uri string) error {
	ctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	client, err := mongo.Connect(options.Client().ApplyURI(uri).SetServerSelectionTimeout(pingTimeout))
	if err != nil {
		return err
	}
	defer func() { _ = client.Disconnect(context.WithoutCancel(ctx)) }()
	return client.Ping(ctx, readpref.Primary())
}

// minLevel drops records below min before they reach h.
type minLevel struct {
	h   slog.Handler
	min slog.Level
}

func (m minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= m.min && m.h.Enabled(ctx, l)
}

func (m minLevel) Handle(ctx context.Context, r slog.Record) error { return m.h.Handle(ctx, r) }

func (m minLevel) WithAttrs(attrs []slog.Attr) slog.Handler {
	return minLevel{h: m.h.WithAttrs(attrs), min: m.min}
}

func (m minLevel) WithGroup(name string) slog.Handler {
	return minLevel{h: m.h.WithGroup(name), min: m.min}
}
