// Package srutest runs a local SRU catalogue server for tests: it answers
// searchRetrieve requests for the ISBNs it was given with Library of
// Congress-style SRU 1.1 envelopes, and can be made slow or broken.
//
// As part of adapters/sru it may import that adapter, ports, the core
// packages and outside libraries, but no other adapter and nothing under
// cmd (the layer rules of test/architecture_test.go).
package srutest

import (
	_ "embed"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The ISBNs of the record in Matilda: its ISBN-13 and its ISBN-10.
const (
	MatildaISBN   = "9780142410370"
	MatildaISBN10 = "0142410373"
)

// Matilda is a Library of Congress-style SRU answer with one MARCXML
// record: Roald Dahl's Matilda, Puffin Books 2007.
//
//go:embed matilda.xml
var Matilda string

// NoRecords is an SRU answer that found nothing.
const NoRecords = `<?xml version="1.0"?>
<zs:searchRetrieveResponse xmlns:zs="http://www.loc.gov/zing/srw/"><zs:version>1.1</zs:version><zs:numberOfRecords>0</zs:numberOfRecords></zs:searchRetrieveResponse>
`

// Mode is how a Server answers.
type Mode int

// Modes of a Server.
const (
	Normal  Mode = iota // the record of a known ISBN, else NoRecords
	Slow                // nothing until the client gives up (or 30 s pass)
	Garbage             // an HTML error page, as a proxy sends
)

// Server is a local SRU server.
type Server struct {
	*httptest.Server
	mu      sync.Mutex
	mode    Mode
	records map[string]string
	queries []string
	conns   atomic.Int32
}

// Start starts a server that knows the Matilda record under both its
// ISBNs; it is closed when the test ends.
func Start(tb testing.TB) *Server {
	tb.Helper()
	s := &Server{records: map[string]string{MatildaISBN: Matilda, MatildaISBN10: Matilda}}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	s.Server.Start()
	tb.Cleanup(s.Close)
	return s
}

// Accepted is how many connections the server has accepted: 0 when the
// service never reached it.
func (s *Server) Accepted() int { return int(s.conns.Load()) }

// Serve makes the server answer a query for isbn (as the client sends it:
// digits, no hyphens) with answer, a whole SRU document.
func (s *Server) Serve(isbn, answer string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.records[isbn] = answer
}

// Endpoint is the server's SRU base URL, as a school sets it.
func (s *Server) Endpoint() string { return s.URL + "/LCDB" }

// SetMode changes how the server answers from now on.
func (s *Server) SetMode(m Mode) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mode = m
}

// Queries returns the CQL queries the server was asked, in order.
func (s *Server) Queries() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.queries...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	mode := s.mode
	s.queries = append(s.queries, q.Get("query"))
	record, known := s.records[strings.TrimPrefix(q.Get("query"), "bath.isbn=")]
	s.mu.Unlock()
	switch {
	case mode == Slow:
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
		return
	case mode == Garbage:
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html><body><h1>502 Proxy Error</h1></body></html>"))
		return
	case q.Get("operation") != "searchRetrieve" || q.Get("recordSchema") != "marcxml":
		http.Error(w, "unsupported request", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/xml; charset=utf-8")
	if !known {
		_, _ = w.Write([]byte(NoRecords))
		return
	}
	_, _ = w.Write([]byte(record))
}

// ClosedEndpoint is the SRU URL of a port nothing listens on: a server
// that is down.
func ClosedEndpoint(tb testing.TB) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("listen: %v", err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return "http://" + addr + "/LCDB"
}
