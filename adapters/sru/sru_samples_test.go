package sru_test

import (
	"context"
	"encoding/xml"
	"os"
	"path/filepath"
	"testing"

	"github.com/readinglibrary/service/adapters/sru/srutest"
)

// TestLookupISBNReadsARealGVIAnswer: a real SRU 1.1 answer of the German
// union catalogue GVI (testdata/README.md), whose MARCXML record carries no
// namespace and is followed by an echoed request and a comment, comes back
// as one record in the MARC21 namespace.
func TestLookupISBNReadsARealGVIAnswer(t *testing.T) {
	answer, err := os.ReadFile(filepath.Join("testdata", "gvi_oracle_rman.xml"))
	if err != nil {
		t.Fatal(err)
	}
	srv := srutest.Start(t)
	srv.Serve("9780071628600", string(answer))
	data, err := lookups(t, 0).LookupISBN(context.Background(), srv.Endpoint(), "978-0-07-162860-0")
	if err != nil {
		t.Fatalf("LookupISBN error = %v", err)
	}
	var c marcCollection
	if err := xml.Unmarshal(data, &c); err != nil || len(c.Records) != 1 {
		t.Fatalf("LookupISBN = %d records (%v), want one MARCXML record:\n%s", len(c.Records), err, data)
	}
	for _, f := range []struct{ tag, code, want string }{
		{"020", "a", "9780071628600"},
		{"100", "a", "Freeman, Robert G."},
		{"245", "a", "Oracle RMAN 11g backup and recovery"},
		{"264", "b", "McGraw-Hill"},
	} {
		if got := c.first(f.tag, f.code); got != f.want {
			t.Errorf("%s $%s = %q, want %q", f.tag, f.code, got, f.want)
		}
	}
}
