package mongotest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// The FerretDB image is built (deploy/images.sh) so that a lookup by _id
// goes through the collection's _id index. Stock FerretDB 1.24 scans the
// whole collection for it, in every update and delete, so an import's
// publishing updateMany took time in the square of its size.
func TestFerretDBImageLooksUpByIDThroughTheIndex(t *testing.T) {
	if Backend() != BackendFerretDBContainer {
		t.Skipf("checks the FerretDB image; %s=%s selects it", EnvBackend, BackendFerretDBContainer)
	}
	uri, name := NewDatabase(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = client.Disconnect(context.Background()) }()
	db := client.Database(name)
	books := db.Collection("books")
	if _, err := books.InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: "a"}, {Key: "title", Value: "Matilda"}},
		bson.D{{Key: "_id", Value: "b"}, {Key: "title", Value: "Holes"}},
	}); err != nil {
		t.Fatal(err)
	}

	var plan bson.M
	explain := bson.D{{Key: "explain", Value: bson.D{{Key: "find", Value: "books"}, {Key: "filter", Value: bson.D{{Key: "_id", Value: "b"}}}}}}
	if err := db.RunCommand(ctx, explain).Decode(&plan); err != nil {
		t.Fatal(err)
	}
	if s := fmt.Sprint(plan["queryPlanner"]); !strings.Contains(s, "USING INDEX") {
		t.Errorf("a find by _id does not use the _id index; FerretDB's plan: %s", s)
	}

	// The lookup still finds exactly the document asked for.
	res, err := books.UpdateOne(ctx, bson.D{{Key: "_id", Value: "b"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "shelved", Value: true}}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.MatchedCount != 1 || res.ModifiedCount != 1 {
		t.Fatalf("update of _id b: matched %d, modified %d; want 1 and 1", res.MatchedCount, res.ModifiedCount)
	}
	for id, want := range map[string]bool{"a": false, "b": true} {
		var got bson.M
		if err := books.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&got); err != nil {
			t.Fatalf("find _id %s: %v", id, err)
		}
		if shelved, _ := got["shelved"].(bool); shelved != want {
			t.Errorf("book %s: shelved = %v, want %v (%v)", id, shelved, want, got)
		}
	}
	if res, err := books.DeleteMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: []string{"a"}}}}}); err != nil || res.DeletedCount != 1 {
		t.Fatalf("delete _id a: %v, %v", res, err)
	}
	if n, err := books.CountDocuments(ctx, bson.D{}); err != nil || n != 1 {
		t.Fatalf("after deleting a: %d documents (%v), want 1", n, err)
	}
}
