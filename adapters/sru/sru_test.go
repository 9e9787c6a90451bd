package sru_test

import (
	"context"
	"encoding/xml"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/readinglibrary/service/adapters/outbound"
	"github.com/readinglibrary/service/adapters/sru"
	"github.com/readinglibrary/service/adapters/sru/srutest"
	"github.com/readinglibrary/service/core/errs"
)

// marcCollection is what a test reads back of a lookup's MARCXML.
type marcCollection struct {
	XMLName xml.Name `xml:"http://www.loc.gov/MARC21/slim collection"`
	Records []struct {
		Fields []struct {
			Tag       string `xml:"tag,attr"`
			Subfields []struct {
				Code  string `xml:"code,attr"`
				Value string `xml:",chardata"`
			} `xml:"subfield"`
		} `xml:"datafield"`
	} `xml:"record"`
}

func (c marcCollection) first(tag, code string) string {
	for _, f := range c.Records[0].Fields {
		for _, sf := range f.Subfields {
			if f.Tag == tag && sf.Code == code {
				return sf.Value
			}
		}
	}
	return ""
}

// lookups is a client whose outbound calls may reach this machine's
// loopback, where the tests' servers listen, and nothing else.
func lookups(t *testing.T, timeout time.Duration) *sru.Client {
	t.Helper()
	p, err := outbound.NewPolicy("127.0.0.0/8,::1", false)
	if err != nil {
		t.Fatal(err)
	}
	return sru.New(outbound.NewClient(p, outbound.Limits{}), timeout)
}

func wantCode(t *testing.T, err error, kind errs.Kind, code string) *errs.Error {
	t.Helper()
	e, ok := errs.As(err)
	if !ok || e.Kind != kind || e.ClientCode() != code {
		t.Fatalf("error = %v, want %s %q", err, kind, code)
	}
	return e
}

func TestLookupISBNReturnsTheRecordAsMARCXML(t *testing.T) {
	srv := srutest.Start(t)
	for _, isbn := range []string{srutest.MatildaISBN, "978-0-14-241037-0", "0-14-241037-3"} {
		data, err := lookups(t, 0).LookupISBN(context.Background(), srv.Endpoint(), isbn)
		if err != nil {
			t.Fatalf("LookupISBN(%s) error = %v", isbn, err)
		}
		var c marcCollection
		if err := xml.Unmarshal(data, &c); err != nil || len(c.Records) != 1 {
			t.Fatalf("LookupISBN(%s) = %d records (%v), want one MARCXML record:\n%s", isbn, len(c.Records), err, data)
		}
		if got := c.first("245", "a"); got != "Matilda /" {
			t.Errorf("245 $a = %q, want %q", got, "Matilda /")
		}
	}
	q := srv.Queries()
	if len(q) != 3 || q[0] != "bath.isbn=9780142410370" || q[2] != "bath.isbn=0142410373" {
		t.Errorf("queries = %q, want bath.isbn= each normalised ISBN", q)
	}
}

func TestLookupISBNKeepsTheEndpointsOwnQuery(t *testing.T) {
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.URL.RawQuery
		_, _ = w.Write([]byte(srutest.NoRecords))
	}))
	defer srv.Close()
	_, _ = lookups(t, 0).LookupISBN(context.Background(), srv.URL+"/biblios?x-database=kids", srutest.MatildaISBN)
	for _, want := range []string{"x-database=kids", "operation=searchRetrieve", "version=1.1", "recordSchema=marcxml", "maximumRecords=1", "query=bath.isbn%3D9780142410370"} {
		if !strings.Contains(got, want) {
			t.Errorf("query %q lacks %q", got, want)
		}
	}
}

func TestLookupISBNZeroRecordsIsNotFound(t *testing.T) {
	srv := srutest.Start(t)
	_, err := lookups(t, 0).LookupISBN(context.Background(), srv.Endpoint(), "9780306406157")
	e := wantCode(t, err, errs.NotFound, "catalog_record_not_found")
	if !strings.Contains(e.Message, "9780306406157") {
		t.Errorf("message %q does not name the ISBN", e.Message)
	}
}

func TestLookupISBNSlowServerTimesOut(t *testing.T) {
	srv := srutest.Start(t)
	srv.SetMode(srutest.Slow)
	_, err := lookups(t, 200*time.Millisecond).LookupISBN(context.Background(), srv.Endpoint(), srutest.MatildaISBN)
	e := wantCode(t, err, errs.GatewayTimeout, "catalog_source_timeout")
	if !strings.Contains(e.Message, "did not answer in time") || strings.Contains(e.Message, "127.0.0.1") || len(e.Details) != 0 {
		t.Errorf("message = %q, details %v; want a clear timeout naming no address", e.Message, e.Details)
	}
}

func TestLookupISBNDownServerIsUnavailable(t *testing.T) {
	_, err := lookups(t, 0).LookupISBN(context.Background(), srutest.ClosedEndpoint(t), srutest.MatildaISBN)
	e := wantCode(t, err, errs.BadGateway, "catalog_source_unavailable")
	if e.Message != unreachable || len(e.Details) != 0 {
		t.Errorf("message = %q, details %v; want %q alone", e.Message, e.Details, unreachable)
	}
	if strings.Contains(e.Error(), "bath.isbn") {
		t.Errorf("error %q names the request URL", e.Error())
	}
}

func TestLookupISBNRefusesAnswersThatAreNoSRU(t *testing.T) {
	huge := strings.Repeat("<a/>", sru.MaxAnswerBytes/4+1)
	tests := []struct {
		name, body string
		status     int
	}{
		{name: "HTML", body: "<html><body>502 Proxy Error</body></html>", status: 200},
		{name: "NotXML", body: "Service temporarily unavailable", status: 200},
		{name: "TruncatedXML", body: srutest.Matilda[:len(srutest.Matilda)/2], status: 200},
		{name: "HTTPError", body: srutest.Matilda, status: 500},
		{name: "Diagnostic", status: 200, body: `<zs:searchRetrieveResponse xmlns:zs="http://www.loc.gov/zing/srw/"><zs:version>1.1</zs:version><zs:numberOfRecords>0</zs:numberOfRecords>` +
			`<zs:diagnostics><diag:diagnostic xmlns:diag="http://www.loc.gov/zing/srw/diagnostic/"><diag:uri>info:srw/diagnostic/1/16</diag:uri><diag:message>Unsupported index</diag:message></diag:diagnostic></zs:diagnostics></zs:searchRetrieveResponse>`},
		// Go's decoder passes a comment's characters unchecked; copied
		// into the collection, a NUL would make it ill-formed.
		{name: "NULInARecordsComment", status: 200, body: `<searchRetrieveResponse><records><record><recordData><!-- a` + "\x00" + ` --><record/></recordData></record></records></searchRetrieveResponse>`},
		{name: "TooLarge", body: "<zs:searchRetrieveResponse xmlns:zs=\"http://www.loc.gov/zing/srw/\">" + huge, status: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			_, err := lookups(t, 0).LookupISBN(context.Background(), srv.URL, srutest.MatildaISBN)
			if e := wantCode(t, err, errs.BadGateway, "catalog_source_unavailable"); e.Message != unreachable || len(e.Details) != 0 {
				t.Errorf("message = %q, details %v; want %q alone: what answered stays in the log", e.Message, e.Details, unreachable)
			}
		})
	}
}

func TestLookupISBNStringPackedRecord(t *testing.T) {
	start := strings.Index(srutest.Matilda, "<record ")
	end := strings.Index(srutest.Matilda, "</record>") + len("</record>")
	escaped := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(srutest.Matilda[start:end])
	body := srutest.Matilda[:start] + escaped + srutest.Matilda[end:]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(body)) }))
	defer srv.Close()
	data, err := lookups(t, 0).LookupISBN(context.Background(), srv.URL, srutest.MatildaISBN)
	var c marcCollection
	if err != nil || xml.Unmarshal(data, &c) != nil || len(c.Records) != 1 || c.first("100", "a") != "Dahl, Roald." {
		t.Fatalf("LookupISBN(string packing) = %s, %v; want the record", data, err)
	}
}

func TestLookupISBNFollowsNoRedirectToAnotherHost(t *testing.T) {
	other := srutest.Start(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.Endpoint()+"?"+r.URL.RawQuery, http.StatusFound)
	}))
	defer srv.Close()
	_, err := lookups(t, 0).LookupISBN(context.Background(), srv.URL, srutest.MatildaISBN)
	e := wantCode(t, err, errs.BadGateway, "catalog_source_unavailable")
	if !strings.Contains(e.Err.Error(), "HTTP 302") || other.Accepted() != 0 {
		t.Errorf("cause = %v, other host reached %d times; want the 302 refused and no connection elsewhere", e.Err, other.Accepted())
	}
}

func TestLookupISBNFollowsARedirectOnItsOwnHost(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/LCDB?"+r.URL.RawQuery, http.StatusMovedPermanently)
	})
	mux.HandleFunc("/LCDB", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(srutest.Matilda)) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	if _, err := lookups(t, 0).LookupISBN(context.Background(), srv.URL+"/old", srutest.MatildaISBN); err != nil {
		t.Fatalf("LookupISBN(same-host redirect) error = %v, want the record", err)
	}
}

func TestLookupISBNRefusesBadInputBeforeAsking(t *testing.T) {
	srv := srutest.Start(t)
	c := lookups(t, 0)
	if _, err := c.LookupISBN(context.Background(), srv.Endpoint(), "9780142410371"); err == nil {
		t.Error("LookupISBN(bad check digit) error = nil")
	} else {
		wantCode(t, err, errs.Invalid, "validation_failed")
	}
	for _, endpoint := range []string{"file:///etc/passwd", "gopher://127.0.0.1/", ""} {
		if _, err := c.LookupISBN(context.Background(), endpoint, srutest.MatildaISBN); err == nil {
			t.Errorf("LookupISBN(%q) error = nil", endpoint)
		}
	}
	if n := len(srv.Queries()); n != 0 {
		t.Errorf("server asked %d times, want 0", n)
	}
}

func TestLookupISBNReadsSRU2Answers(t *testing.T) {
	body := strings.NewReplacer(`xmlns:zs="http://www.loc.gov/zing/srw/"`, `xmlns:zs="http://docs.oasis-open.org/ns/search-ws/sruResponse"`,
		"<zs:recordPacking>xml</zs:recordPacking>", "<zs:recordXMLEscaping>xml</zs:recordXMLEscaping>").Replace(srutest.Matilda)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(body)) }))
	defer srv.Close()
	data, err := lookups(t, 0).LookupISBN(context.Background(), srv.URL, srutest.MatildaISBN)
	var c marcCollection
	if err != nil || xml.Unmarshal(data, &c) != nil || len(c.Records) != 1 || c.first("245", "a") != "Matilda /" {
		t.Fatalf("LookupISBN(SRU 2.0 answer) = %s, %v; want the record", data, err)
	}
}

// unreachable is the one message of a lookup that found no server to ask.
const unreachable = "The catalogue server could not be reached; try again later, or type the book in."

// TestLookupISBNOnARefusedAddressSaysNothingOfIt: a school that points its
// catalogue server at an address the outbound client refuses gets the
// message of a server that is down, word for word, with no address, port
// or cause; the server is never connected to, and the log's cause says
// why.
func TestLookupISBNOnARefusedAddressSaysNothingOfIt(t *testing.T) {
	srv := srutest.Start(t)
	_, port, _ := strings.Cut(strings.TrimPrefix(srv.URL, "http://"), ":")
	closed := sru.New(outbound.NewClient(outbound.Policy{Public: true}, outbound.Limits{}), 0)
	for _, endpoint := range []string{srv.Endpoint(), "http://[::ffff:127.0.0.1]:" + port + "/LCDB", "http://0.0.0.0:" + port + "/LCDB",
		"http://169.254.169.254/latest/meta-data/", "http://[fd00:ec2::254]/"} {
		_, err := closed.LookupISBN(context.Background(), endpoint, srutest.MatildaISBN)
		e := wantCode(t, err, errs.BadGateway, "catalog_source_unavailable")
		if e.Message != unreachable || len(e.Details) != 0 {
			t.Errorf("%s: message %q, details %v; want %q alone", endpoint, e.Message, e.Details, unreachable)
		}
		if !errors.Is(err, outbound.ErrRefused) || !strings.Contains(e.Err.Error(), "refused") {
			t.Errorf("%s: the logged cause %v does not say the address was refused", endpoint, e.Err)
		}
	}
	if n := srv.Accepted(); n != 0 {
		t.Errorf("the refused server accepted %d connections, want 0", n)
	}
	_, err := lookups(t, 0).LookupISBN(context.Background(), srutest.ClosedEndpoint(t), srutest.MatildaISBN)
	if e := wantCode(t, err, errs.BadGateway, "catalog_source_unavailable"); e.Message != unreachable {
		t.Errorf("a closed port: message %q, want the same %q", e.Message, unreachable)
	}
}
