package mongotest

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// A copy of a template database is what the end-to-end tests start their
// services on, so it must be the template: the same collections, the same
// documents, and indexes that still refuse what the template's refuse.
func TestCopyDatabaseCopiesCollectionsIndexesAndDocuments(t *testing.T) {
	uri, template := NewTemplate(t, "copy")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = client.Disconnect(context.Background()) }()

	src := client.Database(template)
	books := src.Collection("books")
	if _, err := books.Indexes().CreateMany(ctx, []mongo.IndexModel{
		{Keys: bson.D{{Key: "isbn", Value: 1}}, Options: options.Index().SetUnique(true).SetName("isbn_unique")},
		{Keys: bson.D{{Key: "import_batch", Value: 1}, {Key: "title", Value: -1}}, Options: options.Index().SetSparse(true)},
	}); err != nil {
		t.Fatal(err)
	}
	// More documents than one insert of the copy carries.
	var docs []any
	for i := range copyBatch + 7 {
		docs = append(docs, bson.D{{Key: "_id", Value: fmt.Sprintf("b%04d", i)}, {Key: "isbn", Value: fmt.Sprintf("978%010d", i)},
			{Key: "title", Value: fmt.Sprintf("Title %d", i)}, {Key: "copies", Value: bson.A{int32(i), "shelf"}}})
	}
	if _, err := books.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	// A collection with an index and no documents, and one with neither.
	if _, err := src.Collection("holds").Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "book", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	if err := src.CreateCollection(ctx, "notices"); err != nil {
		t.Fatal(err)
	}

	_, name := NewDatabase(t)
	if !IsEmpty(t, name) {
		t.Fatalf("a new database %s is not empty", name)
	}
	CopyDatabase(t, template, name)
	if IsEmpty(t, name) {
		t.Fatalf("the copy %s is empty", name)
	}
	dst := client.Database(name)

	if got, want := collectionNames(ctx, t, dst), collectionNames(ctx, t, src); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("collections of the copy %v, of the template %v", got, want)
	}
	for _, coll := range []string{"books", "holds", "notices"} {
		if got, want := indexSpecs(ctx, t, dst.Collection(coll)), indexSpecs(ctx, t, src.Collection(coll)); got != want {
			t.Errorf("indexes of %s: copy %s, template %s", coll, got, want)
		}
	}
	if got, want := allDocuments(ctx, t, dst.Collection("books")), allDocuments(ctx, t, books); got != want {
		t.Errorf("the copy's books differ from the template's:\ncopy     %.300s\ntemplate %.300s", got, want)
	}
	if n, err := dst.Collection("books").CountDocuments(ctx, bson.D{}); err != nil || n != int64(len(docs)) {
		t.Errorf("the copy holds %d books (%v), want %d", n, err, len(docs))
	}
	_, err = dst.Collection("books").InsertOne(ctx, bson.D{{Key: "_id", Value: "dup"}, {Key: "isbn", Value: fmt.Sprintf("978%010d", 3)}})
	if !mongo.IsDuplicateKeyError(err) {
		t.Errorf("a second book with a copied ISBN: %v, want the unique index's duplicate key error", err)
	}

	// Dropping the template leaves the copy.
	if err := DropTemplate(template); err != nil {
		t.Fatal(err)
	}
	if !IsEmpty(t, template) {
		t.Errorf("the template %s is still there after DropTemplate", template)
	}
	if err := DropTemplate(template); err == nil {
		t.Error("dropping the template twice was not refused")
	}
	if n, err := dst.Collection("books").CountDocuments(ctx, bson.D{}); err != nil || n != int64(len(docs)) {
		t.Errorf("after dropping the template the copy holds %d books (%v), want %d", n, err, len(docs))
	}
}

func collectionNames(ctx context.Context, t *testing.T, db *mongo.Database) []string {
	t.Helper()
	names, err := db.ListCollectionNames(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	return names
}

// indexSpecs is the collection's indexes as listIndexes gives them, less
// the field that names the database, in a fixed order.
func indexSpecs(ctx context.Context, t *testing.T, c *mongo.Collection) string {
	t.Helper()
	cur, err := c.Indexes().List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var specs []bson.M
	if err := cur.All(ctx, &specs); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range specs {
		delete(s, "ns")
		// A plain map prints with its keys sorted: the servers list an
		// index's fields in the order they were created in.
		out = append(out, fmt.Sprint(map[string]any(s)))
	}
	sort.Strings(out)
	return fmt.Sprint(out)
}

// allDocuments is every document of c in _id order, as extended JSON.
func allDocuments(ctx context.Context, t *testing.T, c *mongo.Collection) string {
	t.Helper()
	cur, err := c.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cur.Close(ctx) }()
	out := ""
	for cur.Next(ctx) {
		out += cur.Current.String() + "\n"
	}
	if err := cur.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
