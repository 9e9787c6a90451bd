package ferret_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/readinglibrary/service/adapters/mongorepo/mongotest/ferret"
)

func start(t *testing.T, opts ferret.Options) *ferret.Server {
	t.Helper()
	s, err := ferret.Start(context.Background(), opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(s.Stop)
	return s
}

func connect(t *testing.T, uri string) *mongo.Client {
	t.Helper()
	c, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		t.Fatalf("mongo.Connect(%q): %v", uri, err)
	}
	t.Cleanup(func() { _ = c.Disconnect(context.Background()) })
	return c
}

func TestDataSurvivesRestart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()

	s := start(t, ferret.Options{DataDir: dir})
	if got := s.URI(); !strings.HasPrefix(got, "mongodb://%2F") || !strings.HasSuffix(got, ".sock/") {
		t.Fatalf("URI() = %q, want a percent-encoded Unix socket URI", got)
	}
	c := connect(t, s.URI())
	if _, err := c.Database("app").Collection("things").InsertOne(ctx, bson.D{{Key: "_id", Value: "a"}, {Key: "n", Value: 42}}); err != nil {
		t.Fatalf("InsertOne: %v", err)
	}
	if err := c.Disconnect(ctx); err != nil {
		t.Fatalf("Disconnect: %v", err)
	}
	s.Stop()
	s.Stop() // idempotent

	s2 := start(t, ferret.Options{DataDir: dir})
	var got struct {
		N int `bson:"n"`
	}
	err := connect(t, s2.URI()).Database("app").Collection("things").FindOne(ctx, bson.D{{Key: "_id", Value: "a"}}).Decode(&got)
	if err != nil {
		t.Fatalf("FindOne after restart: %v", err)
	}
	if got.N != 42 {
		t.Fatalf("n after restart = %d, want 42", got.N)
	}
}

func TestAddrGivesTCPURI(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()

	s := start(t, ferret.Options{DataDir: t.TempDir(), Addr: addr})
	if got, want := s.URI(), "mongodb://"+addr+"/"; got != want {
		t.Fatalf("URI() = %q, want %q", got, want)
	}
	if err := connect(t, s.URI()).Ping(context.Background(), nil); err != nil {
		t.Fatalf("Ping over TCP: %v", err)
	}
}

func TestLongDataDirFallsBackToTCP(t *testing.T) {
	dir := filepath.Join(t.TempDir(), strings.Repeat("d", 110))
	s := start(t, ferret.Options{DataDir: dir})
	if got := s.URI(); !strings.HasPrefix(got, "mongodb://127.0.0.1:") {
		t.Fatalf("URI() = %q, want a TCP URI on 127.0.0.1", got)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatalf("data dir not created: %v", err)
	}
	if got, want := fi.Mode().Perm(), os.FileMode(0o700); got != want {
		t.Fatalf("data dir mode = %v, want %v", got, want)
	}
}

func TestBadDataDir(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		dir  string
	}{
		{"Empty", ""},
		{"IsAFile", file},
		{"UnderAFile", filepath.Join(file, "sub")},
		{"URICharacters", filepath.Join(t.TempDir(), "a?b")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			s, err := ferret.Start(ctx, ferret.Options{DataDir: tt.dir})
			if err == nil {
				s.Stop()
				t.Fatalf("Start(%q) = nil error, want an error", tt.dir)
			}
			if !strings.Contains(err.Error(), "data dir") {
				t.Fatalf("Start(%q) error = %q, want it to name the data dir", tt.dir, err)
			}
		})
	}
}

func TestSocketInUseIsRefused(t *testing.T) {
	dir := t.TempDir()
	start(t, ferret.Options{DataDir: dir})
	s, err := ferret.Start(context.Background(), ferret.Options{DataDir: dir})
	if err == nil {
		s.Stop()
		t.Fatal("second Start on a live data dir = nil error, want an error")
	}
}

func TestDataDirWithSpaces(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my data")
	s := start(t, ferret.Options{DataDir: dir})
	c := connect(t, s.URI())
	if _, err := c.Database("app").Collection("things").InsertOne(context.Background(), bson.D{{Key: "n", Value: 1}}); err != nil {
		t.Fatalf("InsertOne: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "app.sqlite")); err != nil {
		t.Fatalf("database file not in the data dir: %v", err)
	}
}
