// Command libraryd runs the reading library service: the books and users
// API (/v1), the school library API (/api) and the sign-in endpoints, on the
// embedded SQLite store or on MongoDB. See README.md for its settings.
//
// As the wiring it may import every package of the module, the adapters
// included: the layer rules of test/architecture_test.go set no limit on cmd.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/readinglibrary/service/cmd/libraryd/app"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == "settings" {
		// The configuration table of the README.
		if err := app.WriteSettingsTable(os.Stdout); err != nil {
			os.Exit(1)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	commands := map[string]func(context.Context, func(string) string, []string, io.Writer, io.Writer) error{
		"import":      app.RunImport,      // books from JSON, text and EPUB files
		"backup":      app.RunBackup,      // an online copy of the embedded store
		"migrate":     app.RunMigrate,     // the embedded store to or from MongoDB
		"healthcheck": app.RunHealthcheck, // GET /readyz: the container image's HEALTHCHECK
	}
	if len(os.Args) > 1 {
		if run, ok := commands[os.Args[1]]; ok {
			if err := run(ctx, os.Getenv, os.Args[2:], os.Stdout, os.Stderr); err != nil {
				fmt.Fprintf(os.Stderr, "libraryd %s: %v\n", os.Args[1], err)
				stop()
				os.Exit(1)
			}
			return
		}
	}
	if err := app.Run(ctx, os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "libraryd:", err)
		os.Exit(1)
	}
}
