// Command ferretdb serves FerretDB 1.24 (the MongoDB wire protocol over a
// SQLite store) for the container image readinglibrary/ferretdb:local. It
// wraps the embeddable ferretdb package because FerretDB's own cmd/ferretdb
// panics when built outside its repository (it reads a version file that
// only exists there).
//
//	ferretdb [-listen :27017] [-data /data]   serve until SIGINT or SIGTERM
//	ferretdb healthcheck                      exit 0 if the listener accepts a connection
//
// The flags default to FERRETDB_LISTEN_ADDR and FERRETDB_DATA_DIR when set.
// The image has no shell, so the healthcheck is this binary itself.
//
// It is a module of its own, so the service's go.mod never depends on
// FerretDB's server; it imports only FerretDB and the standard library,
// nothing of the service.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listen := envOr("FERRETDB_LISTEN_ADDR", ":27017")
	if len(os.Args) > 1 && os.Args[1] == "healthcheck" {
		if err := healthcheck(listen); err != nil {
			fmt.Fprintln(os.Stderr, "ferretdb healthcheck:", err)
			os.Exit(1)
		}
		return
	}
	flag.StringVar(&listen, "listen", listen, "TCP address of the MongoDB wire listener")
	data := flag.String("data", envOr("FERRETDB_DATA_DIR", "/data"), "directory of the SQLite files (one per database)")
	// error by default: FerretDB warns about every connection closed
	// without a request, which is what each healthcheck does.
	level := flag.String("log-level", envOr("FERRETDB_LOG_LEVEL", "error"), "debug, info, warn or error")
	flag.Parse()

	if err := run(listen, *data, *level); err != nil {
		fmt.Fprintln(os.Stderr, "ferretdb:", err)
		os.Exit(1)
	}
}

func run(listen, data, level string) error {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(level)); err != nil {
		return fmt.Errorf("log level: %w", err)
	}
	if info, err := os.Stat(data); err != nil || !info.IsDir() {
		return fmt.Errorf("data directory %q must exist", data)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: lvl}))
	f, err := ferretdb.New(&ferretdb.Config{
		Listener: ferretdb.ListenerConfig{TCP: listen},
		Logger:   logger,
		Handler:  "sqlite",
		// The SQLite handler wants a directory URL with a trailing slash.
		SQLiteURL: "file:" + data + "/",
	})
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()
	// MongoDBURI may only be called once Run has started.
	fmt.Fprintf(os.Stderr, "ferretdb: serving %s, data in %s\n", f.MongoDBURI(), data)
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// healthcheck connects to the listener on the loopback address.
func healthcheck(listen string) error {
	_, port, err := net.SplitHostPort(listen)
	if err != nil {
		return err
	}
	conn, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", port), 3*time.Second)
	if err != nil {
		return err
	}
	return conn.Close()
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
