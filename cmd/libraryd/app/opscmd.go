package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/readinglibrary/service/adapters/mongorepo"
	"github.com/readinglibrary/service/adapters/sqliterepo"
	"github.com/readinglibrary/service/ports"
)

// openExistingEmbedded opens LIBRARY_DATA_DIR/library.db, which must exist:
// an operations command never creates an empty store by mistake.
func openExistingEmbedded(ctx context.Context, cfg Config) (*sqliterepo.DB, error) {
	path, err := EmbeddedPath(cfg)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no embedded store at %s (LIBRARY_DATA_DIR=%s)", path, cfg.DataDir)
	} else if err != nil {
		return nil, err
	}
	return sqliterepo.Open(ctx, path)
}

// RunBackup is `libraryd backup FILE`: an online, consistent copy of the
// embedded store into FILE, taken while the service keeps serving. FILE
// must not exist. To restore, stop the service, put the copy in place of
// LIBRARY_DATA_DIR/library.db (removing library.db-wal and library.db-shm)
// and start it again.
func RunBackup(ctx context.Context, getenv func(string) string, args []string, stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet("libraryd backup", flag.ContinueOnError)
	flags.SetOutput(stderr)
	flags.Usage = func() {
		fmt.Fprintln(stderr, "usage: libraryd backup FILE   (an online copy of LIBRARY_DATA_DIR/library.db)")
	}
	if err := flags.Parse(args); err != nil {
		return err
	}
	if flags.NArg() != 1 {
		flags.Usage()
		return errors.New("name one backup file")
	}
	cfg, err := LoadConfig(getenv)
	if err != nil {
		return err
	}
	if !cfg.Embedded() {
		return errors.New("LIBRARY_MONGODB_URI is set: back a MongoDB database up with mongodump or your cluster's backups")
	}
	db, err := openExistingEmbedded(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	start := time.Now()
	target := flags.Arg(0)
	if err := db.Backup(ctx, target); err != nil {
		return err
	}
	info, err := os.Stat(target)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backed up %s to %s (%d bytes) in %s\n", db.Path(), target, info.Size(), time.Since(start).Round(time.Millisecond))
	return nil
}

// migrateBatch is how many records are read and written at a time.
const migrateBatch = 1000

// RunMigrate is `libraryd migrate --to MONGODB_URI` (the embedded store into
// an empty MongoDB database, for a school that outgrows one machine) or
// `libraryd migrate --from MONGODB_URI` (a MongoDB database, such as the
// embedded FerretDB of an earlier version, into an empty embedded store).
// Every kind of record is copied as stored, and the counts of every kind
// are compared at the end. A target that holds any record is refused.
func RunMigrate(ctx context.Context, getenv func(string) string, args []string, stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet("libraryd migrate", flag.ContinueOnError)
	flags.SetOutput(stderr)
	to := flags.String("to", "", "copy the embedded store into this MongoDB URI (an empty database)")
	from := flags.String("from", "", "copy this MongoDB URI's database into the embedded store (which must be empty)")
	database := flags.String("database", "", "the MongoDB database name (default: LIBRARY_MONGODB_DATABASE, or library)")
	flags.Usage = func() {
		fmt.Fprintln(stderr, "usage: libraryd migrate --to mongodb://...   |   libraryd migrate --from mongodb://...")
		flags.PrintDefaults()
	}
	if err := flags.Parse(args); err != nil {
		return err
	}
	if (*to == "") == (*from == "") || flags.NArg() != 0 {
		flags.Usage()
		return errors.New("name exactly one of --to and --from")
	}
	// The embedded store's location comes from the usual settings, never
	// a MongoDB URI: this command reads the URI from its flag.
	cfg, err := LoadConfig(func(k string) string {
		if k == "LIBRARY_MONGODB_URI" {
			return ""
		}
		return getenv(k)
	})
	if err != nil {
		return err
	}
	name := *database
	if name == "" {
		name = cfg.Database
	}
	uri := *to + *from
	mdb, err := mongorepo.Connect(ctx, uri, name)
	if err != nil {
		return err
	}
	defer mdb.Close(context.WithoutCancel(ctx))

	var sdb *sqliterepo.DB
	if *to != "" {
		if sdb, err = openExistingEmbedded(ctx, cfg); err != nil {
			return err
		}
	} else {
		path, err := EmbeddedPath(cfg)
		if err != nil {
			return err
		}
		if err := makeDataDir(cfg.DataDir); err != nil {
			return fmt.Errorf("LIBRARY_DATA_DIR: %w", err)
		}
		if sdb, err = sqliterepo.Open(ctx, path); err != nil {
			return err
		}
	}
	defer sdb.Close()

	source, target := ports.RecordStore(sdb.Records()), ports.RecordStore(mdb.Records())
	sourceName, targetName := sdb.Path(), redactURL(uri)+" (database "+name+")"
	if *from != "" {
		source, target = target, source
		sourceName, targetName = targetName, sourceName
	} else if err := mdb.EnsureIndexes(ctx); err != nil {
		return fmt.Errorf("create the indexes of %s: %w", targetName, err)
	}
	counts, err := copyRecords(ctx, source, target, targetName, stdout)
	if err != nil {
		return err
	}
	var total int64
	for _, n := range counts {
		total += n
	}
	fmt.Fprintf(stdout, "copied %d records from %s to %s; every count matches\n", total, sourceName, targetName)
	return nil
}

// copyRecords copies every kind of record from source into the empty
// target and checks the counts, returning them by kind.
func copyRecords(ctx context.Context, source, target ports.RecordStore, targetName string, out io.Writer) (map[ports.RecordKind]int64, error) {
	for _, kind := range ports.RecordKinds {
		n, err := target.Count(ctx, kind)
		if err != nil {
			return nil, fmt.Errorf("count %s in %s: %w", kind, targetName, err)
		}
		if n > 0 {
			return nil, fmt.Errorf("%s is not empty (%d %s): migrate only into an empty store, so that nothing is mixed or overwritten", targetName, n, kind)
		}
	}
	counts := map[ports.RecordKind]int64{}
	for _, kind := range ports.RecordKinds {
		want, err := source.Count(ctx, kind)
		if err != nil {
			return nil, fmt.Errorf("count %s: %w", kind, err)
		}
		err = source.Read(ctx, kind, migrateBatch, func(records []any) error {
			return target.Write(ctx, kind, records)
		})
		if err != nil {
			return nil, fmt.Errorf("copy %s: %w (the target now holds part of the data; empty it before trying again)", kind, err)
		}
		got, err := target.Count(ctx, kind)
		if err != nil {
			return nil, fmt.Errorf("count %s in %s: %w", kind, targetName, err)
		}
		if got != want {
			return nil, fmt.Errorf("%s: %d in the source but %d in %s after the copy", kind, want, got, targetName)
		}
		counts[kind] = got
		fmt.Fprintf(out, "  %-20s %d\n", kind, got)
	}
	return counts, nil
}
