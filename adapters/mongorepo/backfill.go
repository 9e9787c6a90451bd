package mongorepo

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/holdingsfile"
	"github.com/readinglibrary/service/core/library"
)

// colMigrations records the data migrations that have run, one document
// per migration keyed by its name, so each runs once per database and a
// start after that costs one lookup.
const colMigrations = "migrations"

var _ = register(entity{collections: []collection{{colMigrations, nil}}})

// migration brings documents written by an earlier version to the shape
// this version reads. Each must be idempotent: two replicas starting at
// once may both run it before either records it.
type migration struct {
	name string
	run  func(ctx context.Context, db *mongo.Database) error
}

// noTerms selects documents stored before they had search terms;
// finalSigma those whose terms were folded before Greek final sigma folded
// with Σ (catalog.Fold).
var (
	noTerms    = bson.D{{Key: "search_terms", Value: bson.D{{Key: "$exists", Value: false}}}}
	finalSigma = bson.D{{Key: "search_terms", Value: bson.D{{Key: "$regex", Value: "ς"}}}}
)

var migrations = []migration{
	{"library-search-terms", backfillTerms(colLibraryBooks, noTerms, []string{"title", "author"})},
	{"account-search-terms", backfillTerms(colAccounts, noTerms, []string{"name", "email", "student_number"})},
	{"student-numbers-ignore-case", rekeyStudentNumbers},
	{"final-sigma-books", backfillTerms(colBooks, finalSigma, []string{"title", "author"})},
	{"final-sigma-library-books", backfillTerms(colLibraryBooks, finalSigma, []string{"title", "author"})},
	{"final-sigma-accounts", backfillTerms(colAccounts, finalSigma, []string{"name", "email", "student_number"})},
	{"anonymized-loans-without-student", clearLegacyStudentMarker},
	{"library-books-match-key", backfillMatchKeys},
	{"books-without-published-date", unsetEmptyPublishedDate},
	{"library-books-work-key", backfillWorkKeys},
	{"books-app-link-keys", backfillAppBookKeys},
}

// unsetEmptyPublishedDate removes the "" earlier versions stored for a book
// without a publication date: such a book has no published_date field.
// One updateMany on the published_date index.
func unsetEmptyPublishedDate(ctx context.Context, db *mongo.Database) error {
	update := bson.D{{Key: "$unset", Value: bson.D{{Key: "published_date", Value: ""}}}}
	_, err := db.Collection(colBooks).UpdateMany(ctx, bson.D{{Key: "published_date", Value: ""}}, update)
	return mapErr(err, "unset empty publication dates", nil, nil)
}

// clearLegacyStudentMarker removes the "deleted-student" marker earlier
// versions put on the loans of deleted students: an anonymized loan has no
// student id. One updateMany on the {student_id, loaned_at} index.
func clearLegacyStudentMarker(ctx context.Context, db *mongo.Database) error {
	update := bson.D{{Key: "$set", Value: bson.D{{Key: "student_id", Value: ""}}}}
	_, err := db.Collection(colLoans).UpdateMany(ctx, bson.D{{Key: "student_id", Value: "deleted-student"}}, update)
	return mapErr(err, "clear the deleted-student marker", nil, nil)
}

// migrate runs the migrations this database has not recorded yet.
func (d *DB) migrate(ctx context.Context) error {
	done := d.db.Collection(colMigrations)
	for _, m := range migrations {
		n, err := done.CountDocuments(ctx, bson.D{{Key: "_id", Value: m.name}}, options.Count().SetLimit(1))
		if err != nil {
			return fmt.Errorf("mongorepo: migration %s: %w", m.name, mapErr(err, "read the migrations", nil, nil))
		}
		if n > 0 {
			continue
		}
		if err := m.run(ctx, d.db); err != nil {
			return fmt.Errorf("mongorepo: migration %s: %w", m.name, err)
		}
		if _, err := done.InsertOne(ctx, bson.D{{Key: "_id", Value: m.name}}); err != nil && !mongo.IsDuplicateKeyError(err) {
			return fmt.Errorf("mongorepo: migration %s: %w", m.name, mapErr(err, "record the migration", nil, nil))
		}
	}
	return nil
}

// backfillTerms sets search_terms on the documents of collection that
// filter selects, from the given string fields (catalog.SearchTerms of them
// joined).
func backfillTerms(collection string, filter bson.D, fields []string) func(context.Context, *mongo.Database) error {
	return func(ctx context.Context, db *mongo.Database) error {
		c := db.Collection(collection)
		cur, err := c.Find(ctx, filter)
		if err != nil {
			return mapErr(err, "find documents without search terms", nil, nil)
		}
		defer cur.Close(ctx)
		for cur.Next(ctx) {
			var doc bson.M
			if err := cur.Decode(&doc); err != nil {
				return mapErr(err, "read a document", nil, nil)
			}
			text := ""
			for _, f := range fields {
				if v, ok := doc[f].(string); ok {
					text += " " + v
				}
			}
			update := bson.D{{Key: "$set", Value: bson.D{{Key: "search_terms", Value: searchTermsOf(text)}}}}
			if _, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: doc["_id"]}}, update); err != nil {
				return mapErr(err, "set search terms", nil, nil)
			}
		}
		return mapErr(cur.Err(), "read documents", nil, nil)
	}
}

// rekeyStudentNumbers moves student numbers stored under a key with
// capitals (earlier versions kept the case) to the lowercased key, so that
// numbers differing only in case are one number from now on. When two
// such numbers exist, the first moved keeps the key and the other stays
// under its old key, still reserved for its account.
func rekeyStudentNumbers(ctx context.Context, db *mongo.Database) error {
	c := db.Collection(colStudentNumbers)
	cur, err := c.Find(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$regex", Value: "[A-Z]"}}}})
	if err != nil {
		return mapErr(err, "find student numbers", nil, nil)
	}
	var docs []studentNumberDoc
	if err := cur.All(ctx, &docs); err != nil {
		return mapErr(err, "read student numbers", nil, nil)
	}
	for _, d := range docs {
		old := d.ID
		d.ID = studentNumberID(d.SchoolID, d.Number)
		if d.ID == old {
			continue
		}
		if _, err := c.InsertOne(ctx, d); err != nil {
			if mongo.IsDuplicateKeyError(err) {
				continue
			}
			return mapErr(err, "rekey a student number", nil, nil)
		}
		if _, err := c.DeleteOne(ctx, bson.D{{Key: "_id", Value: old}}); err != nil {
			return mapErr(err, "rekey a student number", nil, nil)
		}
	}
	return nil
}

// backfillMatchKeys sets match_key (library.MatchKey of title and author)
// on the library books stored before holdings imports. It reads the books
// without the field once, as the search-term backfills do.
func backfillMatchKeys(ctx context.Context, db *mongo.Database) error {
	c := db.Collection(colLibraryBooks)
	cur, err := c.Find(ctx, bson.D{{Key: "match_key", Value: bson.D{{Key: "$exists", Value: false}}}})
	if err != nil {
		return mapErr(err, "find books without a match key", nil, nil)
	}
	defer cur.Close(ctx)
	for cur.Next(ctx) {
		var doc libraryBookDoc
		if err := cur.Decode(&doc); err != nil {
			return mapErr(err, "read a book", nil, nil)
		}
		update := bson.D{{Key: "$set", Value: bson.D{{Key: "match_key", Value: holdingsfile.MatchKey(doc.Title, doc.Author)}}}}
		if _, err := c.UpdateOne(ctx, byID(doc.ID), update); err != nil {
			return mapErr(err, "set the match key", nil, nil)
		}
	}
	return mapErr(cur.Err(), "read books", nil, nil)
}

// backfillWorkKeys sets work_key (catalog.WorkKey of title and author) on
// the library books stored before app links, reading them once as
// backfillMatchKeys does.
func backfillWorkKeys(ctx context.Context, db *mongo.Database) error {
	return backfillKeys(ctx, db.Collection(colLibraryBooks), func(doc libraryBookDoc) (string, bson.D) {
		return doc.ID, bson.D{{Key: "work_key", Value: catalog.WorkKey(doc.Title, doc.Author)}}
	})
}

// backfillAppBookKeys sets isbn13 and work_key on the reading app's books
// stored before app links.
func backfillAppBookKeys(ctx context.Context, db *mongo.Database) error {
	return backfillKeys(ctx, db.Collection(colBooks), func(doc bookDoc) (string, bson.D) {
		return doc.ID, bson.D{{Key: "isbn13", Value: library.ISBN13(doc.ISBN)}, {Key: "work_key", Value: catalog.WorkKey(doc.Title, doc.Author)}}
	})
}

// backfillKeys sets, on each document of c without a work_key, the fields
// keys derives from it: one find, then one update by _id per document.
func backfillKeys[D any](ctx context.Context, c *mongo.Collection, keys func(D) (string, bson.D)) error {
	cur, err := c.Find(ctx, bson.D{{Key: "work_key", Value: bson.D{{Key: "$exists", Value: false}}}})
	if err != nil {
		return mapErr(err, "find books without a work key", nil, nil)
	}
	defer cur.Close(ctx)
	for cur.Next(ctx) {
		var doc D
		if err := cur.Decode(&doc); err != nil {
			return mapErr(err, "read a book", nil, nil)
		}
		id, set := keys(doc)
		if _, err := c.UpdateOne(ctx, byID(id), bson.D{{Key: "$set", Value: set}}); err != nil {
			return mapErr(err, "set the work key", nil, nil)
		}
	}
	return mapErr(cur.Err(), "read books", nil, nil)
}
