package test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/readinglibrary/service/adapters/sru/srutest"
)

// TestCatalogLookupReadsARealSRUAnswer: a real answer of the German union
// catalogue GVI (adapters/sru/testdata/README.md), served by the local SRU
// server, is read by the SRU client and the MARC codec into the book to
// check: a record without the MARC namespace, blanks written as '#' in its
// leader and 008, the publisher and year in a 264, a price beside the ISBN.
func TestCatalogLookupReadsARealSRUAnswer(t *testing.T) {
	w := newLibraryWorld(t)
	answer, err := os.ReadFile(filepath.Join("..", "adapters", "sru", "testdata", "gvi_oracle_rman.xml"))
	if err != nil {
		t.Fatal(err)
	}
	srv := srutest.Start(t)
	srv.Serve("9780071628600", string(answer))
	srv.Serve("0071628606", string(answer))
	w.pointCatalogAt(t, srv.Endpoint())

	for _, isbn := range []string{"978-0-07-162860-0", "0071628606"} {
		r := w.lookUp(w.libA, isbn)
		if r.Status != 200 {
			t.Fatalf("lookup %s: %d %s", isbn, r.Status, r.Body)
		}
		d := r.json(t)
		for k, want := range map[string]any{"isbn": strings.ReplaceAll(isbn, "-", ""), "author": "Freeman, Robert G.",
			"publisher": "McGraw-Hill", "published_year": float64(2010), "call_number": "005.86",
			"title": "Oracle RMAN 11g backup and recovery: [maximize the capabilities of Oracle recovery manager ; covers release 2]"} {
			if d[k] != want {
				t.Errorf("lookup %s: %s = %v, want %v", isbn, k, d[k], want)
			}
		}
		subjects, _ := d["subjects"].([]any)
		if len(subjects) != 4 || subjects[1] != "Relational databases" {
			t.Errorf("lookup %s: subjects = %v, want the record's four 650s", isbn, subjects)
		}
	}
}
