// Package sru looks ISBNs up on library catalogue servers through SRU
// (Search/Retrieve via URL, versions 1.1 and 1.2, as the Library of
// Congress and Koha serve it) and hands back their MARCXML records.
//
// The endpoint is a school's setting, so the server fetches a URL a
// librarian chose. Lookups go through the HTTP client cmd hands to New,
// the service's outbound client (adapters/outbound), which decides which
// addresses may be called at all; on top of it only http and https are
// asked, a redirect is followed only on the same host, the answer is cut
// at MaxAnswerBytes and a lookup gives up after DefaultTimeout. A failed
// lookup tells the user only that the server could not be reached or did
// not answer in time: what was refused, what answered, or what the server
// said goes to the log, with its host and never its URL.
//
// Like every adapter it may import ports, the core packages and outside
// libraries, but no other adapter and nothing under cmd (the layer rules of
// test/architecture_test.go).
package sru

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

// Defaults of a Client.
const (
	// DefaultTimeout bounds a whole lookup (connect, ask, read): the desk
	// shows a clear message instead of a spinner, and the librarian types
	// the book in.
	DefaultTimeout = 5 * time.Second
	// MaxAnswerBytes bounds an answer: one MARCXML record is a few KB, and
	// a server that sends more is not answering the question asked.
	MaxAnswerBytes = 2 << 20
	// maxRedirects bounds redirects on the endpoint's own host (http to
	// https, a moved path).
	maxRedirects = 3
)

// Client asks SRU servers for ISBNs; it implements ports.CatalogSource.
// The zero value is not usable: use New.
type Client struct {
	http    *http.Client
	timeout time.Duration
}

var _ ports.CatalogSource = (*Client)(nil)

// New returns a client that asks catalogue servers through hc (the
// service's outbound client) and gives up after timeout (DefaultTimeout
// when 0). hc's own redirect rule still applies; redirects to another host
// are not followed either.
func New(hc *http.Client, timeout time.Duration) *Client {
	if hc == nil {
		panic("sru: New needs the service's outbound HTTP client")
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	own := *hc
	outer := hc.CheckRedirect
	own.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if outer != nil {
			if err := outer(req, via); err != nil {
				return err
			}
		}
		return sameHostRedirects(req, via)
	}
	return &Client{timeout: timeout, http: &own}
}

// sameHostRedirects follows a redirect only to the host (and port) the
// school set, so a catalogue server cannot send the service on to another
// machine; any other redirect is answered as the 3xx it is.
func sameHostRedirects(req *http.Request, via []*http.Request) error {
	if len(via) > maxRedirects || !strings.EqualFold(req.URL.Host, via[0].URL.Host) ||
		(req.URL.Scheme != "http" && req.URL.Scheme != "https") {
		return http.ErrUseLastResponse
	}
	return nil
}

// LookupISBN asks endpoint (an SRU base URL) for the record of isbn and
// returns the records it answers with as one MARCXML collection.
// Errors: Invalid "isbn" or "sru_endpoint" for values no server should
// see; NotFound "catalog_record_not_found" when the server has none;
// GatewayTimeout "catalog_source_timeout" when no whole answer came within
// the timeout; BadGateway "catalog_source_unavailable" when the server is
// down, refuses, or answers with something that is not an SRU answer.
func (c *Client) LookupISBN(ctx context.Context, endpoint, isbn string) ([]byte, error) {
	isbn = library.NormalizeISBN(strings.TrimSpace(isbn))
	if !library.ValidISBN(isbn) {
		return nil, errs.InvalidField("isbn", "must be a valid ISBN-10 or ISBN-13")
	}
	u, err := searchURL(endpoint, isbn)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	body, err := c.get(ctx, u)
	if err != nil {
		return nil, err
	}
	collection, err := recordsOf(body)
	if err != nil {
		return nil, unavailable(u.Host, "answered with something that is not an SRU answer", err)
	}
	if collection == nil {
		return nil, library.ErrCatalogRecordNotFound(isbn)
	}
	return collection, nil
}

// searchURL is endpoint with the searchRetrieve parameters for isbn; any
// query the endpoint has of its own is kept.
func searchURL(endpoint, isbn string) (*url.URL, error) {
	if endpoint == "" || !library.ValidCatalogEndpoint(endpoint) {
		return nil, errs.InvalidField("sru_endpoint", "must be an http or https URL")
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil, errs.InvalidField("sru_endpoint", "must be an http or https URL")
	}
	u.Scheme = strings.ToLower(u.Scheme)
	q := u.Query()
	q.Set("version", "1.1")
	q.Set("operation", "searchRetrieve")
	q.Set("query", "bath.isbn="+isbn)
	q.Set("recordSchema", "marcxml")
	q.Set("maximumRecords", "1")
	u.RawQuery = q.Encode()
	u.ForceQuery = false
	return u, nil
}

// get fetches u and returns its body, at most MaxAnswerBytes of it.
func (c *Client) get(ctx context.Context, u *url.URL) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, unavailable(u.Host, "cannot be asked", err)
	}
	req.Header.Set("Accept", "application/xml, text/xml;q=0.9")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, transportError(ctx, u.Host, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, unavailable(u.Host, fmt.Sprintf("answered HTTP %d", resp.StatusCode), nil)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxAnswerBytes+1))
	if err != nil {
		return nil, transportError(ctx, u.Host, err)
	}
	if len(body) > MaxAnswerBytes {
		return nil, unavailable(u.Host, fmt.Sprintf("answered with more than %d bytes", MaxAnswerBytes), nil)
	}
	return body, nil
}

// The messages a user reads of a failed lookup. They are the same whatever
// happened, so that a school's setting cannot be used to learn which
// addresses the service refuses, which ports answer, or what they say.
const (
	unreachableMessage = "The catalogue server could not be reached; try again later, or type the book in."
	timeoutMessage     = "The catalogue server did not answer in time; try again later, or type the book in."
)

// transportError tells a lookup that ran out of time from a server that
// could not be reached. The cause kept for the log is the transport's own
// error without the URL (*url.Error names it, query and all).
func transportError(ctx context.Context, host string, err error) error {
	var ue *url.Error
	timeout := errors.As(err, &ue) && ue.Timeout()
	if ue != nil {
		err = ue.Err
	}
	if timeout || errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		e := errs.E(errs.GatewayTimeout, errs.CodeCatalogSourceTimeout, "%s", timeoutMessage)
		e.Err = fmt.Errorf("catalogue server %s: no answer in time: %w", host, err)
		return e
	}
	return unavailable(host, "could not be reached", err)
}

// unavailable is the error of a server that was refused, answered wrongly
// or not at all; what is kept for the log only.
func unavailable(host, what string, cause error) error {
	e := errs.E(errs.BadGateway, errs.CodeCatalogSourceUnavailable, "%s", unreachableMessage)
	if cause == nil {
		cause = errors.New(what)
	} else {
		cause = fmt.Errorf("%s: %w", what, cause)
	}
	// The log names the host and the cause, never the URL asked.
	e.Err = fmt.Errorf("catalogue server %s: %w", host, cause)
	return e
}

// envelope is the part of an SRU searchRetrieveResponse a lookup reads.
// Element names are matched without their namespace, so SRU 1.1, 1.2
// (http://www.loc.gov/zing/srw/) and 2.0 (OASIS) answers read alike.
type envelope struct {
	XMLName     xml.Name
	Records     []recordData `xml:"records>record>recordData"`
	Diagnostics []diagnostic `xml:"diagnostics>diagnostic"`
}

type recordData struct {
	Inner []byte `xml:",innerxml"`
}

type diagnostic struct {
	URI     string `xml:"uri"`
	Message string `xml:"message"`
}

// recordsOf reads an SRU answer: nil when it has no record, else its
// records in one MARCXML collection. A diagnostic (the server refused the
// query) or a document that is no searchRetrieveResponse is an error.
func recordsOf(body []byte) ([]byte, error) {
	var env envelope
	dec := xml.NewDecoder(bytes.NewReader(body))
	dec.Strict = true
	if err := dec.Decode(&env); err != nil {
		return nil, fmt.Errorf("reading the answer: %w", err)
	}
	if env.XMLName.Local != "searchRetrieveResponse" {
		return nil, fmt.Errorf("the answer is a %q document", env.XMLName.Local)
	}
	if len(env.Diagnostics) > 0 {
		return nil, fmt.Errorf("diagnostic %s: %s", env.Diagnostics[0].URI, env.Diagnostics[0].Message)
	}
	var out bytes.Buffer
	for _, r := range env.Records {
		inner := bytes.TrimSpace(r.Inner)
		if len(inner) > 0 && inner[0] != '<' {
			// recordPacking "string": the record is escaped text.
			var text struct {
				S string `xml:",chardata"`
			}
			if err := xml.Unmarshal(append(append([]byte("<d>"), r.Inner...), "</d>"...), &text); err != nil {
				return nil, fmt.Errorf("reading a string-packed record: %w", err)
			}
			inner = bytes.TrimSpace([]byte(text.S))
			if i := bytes.Index(inner, []byte("?>")); bytes.HasPrefix(inner, []byte("<?xml")) && i > 0 {
				inner = bytes.TrimSpace(inner[i+2:])
			}
		} else if !allXMLChars(inner) {
			// The decoder lets a directive or comment through without
			// checking its characters; copied as it is, it would make the
			// collection ill-formed.
			return nil, errors.New("reading the answer: a record holds characters XML does not allow")
		}
		out.Write(inner)
		out.WriteByte('\n')
	}
	if out.Len() == 0 {
		return nil, nil
	}
	// The records keep the MARC namespace they were sent with; a record
	// whose prefix the envelope declared finds it declared here again.
	return []byte(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<collection xmlns="http://www.loc.gov/MARC21/slim" xmlns:marc="http://www.loc.gov/MARC21/slim">` + "\n" +
		out.String() + "</collection>\n"), nil
}

// allXMLChars reports whether b is UTF-8 of characters XML 1.0 allows.
func allXMLChars(b []byte) bool {
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			return false
		}
		if !(r == '\t' || r == '\n' || r == '\r' || 0x20 <= r && r <= 0xD7FF || 0xE000 <= r && r <= 0xFFFD || 0x10000 <= r && r <= 0x10FFFF) {
			return false
		}
		b = b[size:]
	}
	return true
}
