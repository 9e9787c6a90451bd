package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/event"

	"github.com/readinglibrary/service/adapters/mongorepo"
	"github.com/readinglibrary/service/adapters/sqliterepo"
)

// EmbeddedFile is the name of the embedded store's file in LIBRARY_DATA_DIR.
const EmbeddedFile = "library.db"

// EmbeddedPath is the embedded store's file for cfg.
func EmbeddedPath(cfg Config) (string, error) {
	dir, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		return "", fmt.Errorf("LIBRARY_DATA_DIR: %w", err)
	}
	return filepath.Join(dir, EmbeddedFile), nil
}

// openDatabase opens the store the configuration names, the embedded
// SQLite file when no MongoDB URI is set, and sets a.Repos.
func (a *App) openDatabase(ctx context.Context) error {
	if a.Config.Embedded() {
		return a.openEmbedded(ctx)
	}
	var monitor *event.CommandMonitor
	if a.observe != nil {
		monitor = mongorepo.CommandObserver(a.observe)
	}
	db, err := mongorepo.ConnectWithMonitor(ctx, a.Config.MongoURI, a.Config.Database, monitor)
	if err != nil {
		return fmt.Errorf("connect to MongoDB: %w", err)
	}
	a.closers = append(a.closers, db.Close)
	if err := db.EnsureIndexes(ctx); err != nil {
		return fmt.Errorf("create indexes: %w", err)
	}
	a.Repos = db.Repositories()
	return nil
}

// openEmbedded opens (creating it when needed) LIBRARY_DATA_DIR/library.db.
func (a *App) openEmbedded(ctx context.Context) error {
	path, err := EmbeddedPath(a.Config)
	if err != nil {
		return err
	}
	if err := makeDataDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("LIBRARY_DATA_DIR: %w", err)
	}
	if err := checkDataDir(filepath.Dir(path)); err != nil {
		return err
	}
	if old := legacyFiles(filepath.Dir(path)); len(old) > 0 {
		a.Logger.Warn("the data directory still holds files of an earlier version's embedded database, which this version does not read; move them away once the migrated data is checked",
			"data_dir", filepath.Dir(path), "files", old)
	}
	var opts []sqliterepo.Option
	if a.observe != nil {
		opts = append(opts, sqliterepo.WithStatementObserver(a.observe))
	}
	db, err := sqliterepo.Open(ctx, path, opts...)
	if err != nil {
		return fmt.Errorf("open the embedded store: %w", err)
	}
	a.closers = append(a.closers, func(context.Context) error { return db.Close() })
	a.Repos = db.Repositories()
	a.Logger.Info("embedded store opened", "file", path)
	return nil
}

// dataDirMode is the mode of a data directory the service creates: the
// files in it (the database, its backups' usual neighbour the secret key,
// the mail outbox) are the school's, for the service's user alone.
const dataDirMode fs.FileMode = 0o700

// makeDataDir creates dir, and the directories above it that are missing,
// with dataDirMode whatever the umask. An existing directory keeps its
// mode (warnReadableData tells about it).
func makeDataDir(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.MkdirAll(dir, dataDirMode); err != nil {
		return err
	}
	return os.Chmod(dir, dataDirMode)
}

// privateData are the names in the data directory whose contents are the
// school's: the database and its companions, the default secret key, the
// mail outbox.
var privateData = []string{EmbeddedFile, EmbeddedFile + "-wal", EmbeddedFile + "-shm", SecretKeyFile, "outbox"}

// warnReadableData logs a warning for the data directory and each file of
// privateData in it that other users of the machine may read, naming it and
// its mode. Not fatal: the operator may share them on purpose (a backup
// group), but should know.
func warnReadableData(logger *slog.Logger, dir string) {
	paths := []string{dir}
	for _, name := range privateData {
		paths = append(paths, filepath.Join(dir, name))
	}
	for _, p := range paths {
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode().Perm()&0o044 == 0 {
			continue
		}
		fix := "chmod 600"
		if fi.IsDir() {
			fix = "chmod 700"
		}
		logger.Warn("a data file is readable by other users of this machine; unless that is meant, run "+fix+" on it",
			"file", p, "mode", fmt.Sprintf("%04o", fi.Mode().Perm()))
	}
}

// checkDataDir refuses a data directory that an earlier libraryd filled
// with its FerretDB files (one <database>.sqlite per database) and that
// holds no library.db yet: starting over it would look like an empty
// library while the school's data sits next to it unused.
func checkDataDir(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, EmbeddedFile)); err == nil {
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("LIBRARY_DATA_DIR: %w", err)
	}
	old := legacyFiles(dir)
	if len(old) == 0 {
		return nil
	}
	return fmt.Errorf("LIBRARY_DATA_DIR %s holds the database of an earlier libraryd (%s) and no %s: this version keeps its data in %s "+
		"and will not start over the old files. To bring the data along, run the earlier version with LIBRARY_EMBEDDED_MONGO_ADDR=127.0.0.1:27017, "+
		"then `libraryd migrate --from mongodb://127.0.0.1:27017/` with this version; to start empty instead, move the old files out of %s",
		dir, strings.Join(old, ", "), EmbeddedFile, EmbeddedFile, dir)
}

// legacyFiles lists the FerretDB database files in dir.
func legacyFiles(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".sqlite") {
			out = append(out, e.Name())
		}
	}
	slices.Sort(out)
	return out
}
