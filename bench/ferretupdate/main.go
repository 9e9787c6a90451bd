// Command ferretupdate times what publishing an import costs a MongoDB
// server: n documents inserted with an import_batch field, then one
// updateMany that unsets it (what the MongoDB adapter does when an import
// commits), for growing n, on each server given.
//
//	go run ./bench/ferretupdate -uri stock=mongodb://127.0.0.1:27118/ -uri patched=mongodb://127.0.0.1:27117/
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

type servers []string

func (s *servers) String() string     { return strings.Join(*s, ",") }
func (s *servers) Set(v string) error { *s = append(*s, v); return nil }

func main() {
	var uris servers
	flag.Var(&uris, "uri", "name=mongodb URI of a server (repeat)")
	sizes := flag.String("n", "1000,2000,4000", "document counts, comma-separated")
	flag.Parse()
	fmt.Println("| server | documents | insertMany | updateMany (publish) | per document |")
	fmt.Println("|---|---|---|---|---|")
	for _, u := range uris {
		name, uri, _ := strings.Cut(u, "=")
		for _, s := range strings.Split(*sizes, ",") {
			n, err := strconv.Atoi(s)
			check(err)
			ins, upd, err := run(uri, n)
			check(err)
			fmt.Printf("| %s | %d | %.2f s | %.2f s | %.2f ms |\n", name, n, ins.Seconds(), upd.Seconds(), float64(upd.Microseconds())/1000/float64(n))
		}
	}
}

// run fills a fresh database's collection with n staged documents and
// publishes them, returning both times.
func run(uri string, n int) (insert, update time.Duration, err error) {
	ctx := context.Background()
	c, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		return 0, 0, err
	}
	defer func() { _ = c.Disconnect(ctx) }()
	db := c.Database(fmt.Sprintf("ferretupdate_%d_%d", n, time.Now().UnixNano()))
	defer func() { _ = db.Drop(ctx) }()
	col := db.Collection("books")
	docs := make([]any, n)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: fmt.Sprintf("book-%07d", i)}, {Key: "title", Value: fmt.Sprintf("Imported title %07d", i)}, {Key: "import_batch", Value: "b1"}}
	}
	start := time.Now()
	if _, err := col.InsertMany(ctx, docs); err != nil {
		return 0, 0, err
	}
	insert = time.Since(start)
	start = time.Now()
	res, err := col.UpdateMany(ctx, bson.D{{Key: "import_batch", Value: "b1"}}, bson.D{{Key: "$unset", Value: bson.D{{Key: "import_batch", Value: ""}}}})
	if err != nil {
		return 0, 0, err
	}
	if res.ModifiedCount != int64(n) {
		return 0, 0, fmt.Errorf("updateMany modified %d of %d", res.ModifiedCount, n)
	}
	return insert, time.Since(start), nil
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "ferretupdate:", err)
		os.Exit(1)
	}
}
