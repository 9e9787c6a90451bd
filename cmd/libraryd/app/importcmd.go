package app

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/readinglibrary/service/adapters/bookimport"
	"github.com/readinglibrary/service/cmd/libraryd/wire"
	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/service/reading"
	"github.com/readinglibrary/service/ports"
)

// RunImport is `libraryd import [flags] FILE...`: it reads books from JSON
// (the POST /v1/books shape, one or many), plain text and EPUB files into the
// configured database. Every file is parsed and validated before anything is
// stored; a bad file is reported with its name and reason and none of it is
// stored, while the good files are imported. It fails when any file failed.
func RunImport(ctx context.Context, getenv func(string) string, args []string, stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet("libraryd import", flag.ContinueOnError)
	flags.SetOutput(stderr)
	d := bookimport.Defaults{}
	flags.StringVar(&d.Genre, "genre", "general", "genre of books whose file does not say (plain text, EPUB without a subject)")
	flags.StringVar(&d.ReadingLevel, "level", "intermediate", "reading level of books whose file does not say: beginner, intermediate or advanced")
	access := flags.String("access", "free", "access of books whose file does not say: free or premium")
	flags.StringVar(&d.Language, "language", "en", "language of books whose file does not say")
	flags.Usage = func() {
		fmt.Fprintln(stderr, "usage: libraryd import [flags] FILE...   (.json, .txt, .epub)")
		flags.PrintDefaults()
	}
	if err := flags.Parse(args); err != nil {
		return err
	}
	d.Access = catalog.Access(*access)
	if flags.NArg() == 0 {
		flags.Usage()
		return fmt.Errorf("no files to import")
	}

	type parsed struct {
		path   string
		drafts []catalog.BookDraft
	}
	var good []parsed
	failed := 0
	for _, path := range flags.Args() {
		drafts, err := bookimport.File(path, d)
		if err != nil {
			fmt.Fprintf(stderr, "not imported: %v\n", err)
			failed++
			continue
		}
		good = append(good, parsed{path, drafts})
	}

	if len(good) > 0 {
		cfg, err := LoadConfig(getenv)
		if err != nil {
			return err
		}
		a := &App{Config: cfg, Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
		openCtx, cancel := context.WithTimeout(ctx, time.Minute)
		err = a.openDatabase(openCtx)
		cancel()
		defer a.Close(context.Background())
		if err != nil {
			return err
		}
		books := reading.NewBooks(wire.Books(a.Repos, denyAll{}))
		for _, p := range good {
			stored, err := books.CreateBooks(ctx, p.drafts)
			if err != nil {
				fmt.Fprintf(stderr, "not imported: %s: %v\n", p.path, err)
				failed++
				continue
			}
			for _, b := range stored {
				fmt.Fprintf(stdout, "imported %s: %s (%s), %s, %d chapters\n", b.ID, b.Title, b.Author, p.path, len(b.Chapters))
			}
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d files were not imported", failed, flags.NArg())
	}
	return nil
}

// denyAll stands in for the policies where no caller is ever checked: the
// importer only creates books.
type denyAll struct{}

func (denyAll) Authorize(context.Context, ports.AccessRequest) error {
	return errs.E(errs.Forbidden, errs.CodeForbidden, "Not available from the import command.")
}
