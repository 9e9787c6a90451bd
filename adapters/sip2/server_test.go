package sip2

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// startServer serves on a loopback port until the test ends; the
// requests tested here never reach the use cases.
func startServer(t *testing.T, s *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("Serve did not return after its context ended")
		}
	})
	return ln.Addr().String()
}

func dial(t *testing.T, addr string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	return c, bufio.NewReader(c)
}

// closed reports whether the server closed c: a read ends with EOF (or a
// reset) rather than a timeout.
func closed(c net.Conn, r *bufio.Reader) bool {
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err := r.ReadByte()
	var ne net.Error
	return errors.Is(err, io.EOF) || (err != nil && !(errors.As(err, &ne) && ne.Timeout()))
}

// A message past 4096 bytes closes the connection without an answer.
func TestServerClosesOnTooLongMessage(t *testing.T) {
	addr := startServer(t, &Server{})
	c, r := dial(t, addr)
	if _, err := c.Write([]byte(strings.Repeat("9", MaxMessage+10) + "\r")); err != nil {
		t.Fatal(err)
	}
	if !closed(c, r) {
		t.Error("the connection stays open after a message of 4106 bytes")
	}
}

// Damaged messages are each asked for again (96), ten in a row close the
// connection: a peer that never sends a readable message is not a kiosk.
func TestServerAsksAgainThenGivesUp(t *testing.T) {
	addr := startServer(t, &Server{})
	c, r := dial(t, addr)
	for i := range maxRefusals {
		if _, err := c.Write([]byte("9900402.00|AY1AZ0000\r")); err != nil {
			t.Fatal(err)
		}
		got, err := r.ReadString('\r')
		if err != nil || got != "96AZFEF6\r" {
			t.Fatalf("damaged message %d: %q, %v; want 96AZFEF6", i+1, got, err)
		}
	}
	if !closed(c, r) {
		t.Errorf("the connection stays open after %d damaged messages", maxRefusals)
	}
}

// A connection past MaxConns is closed at once; the ones before it are
// served, and a place freed is taken again.
func TestServerBoundsConnections(t *testing.T) {
	addr := startServer(t, &Server{MaxConns: 1})
	first, fr := dial(t, addr)
	if _, err := first.Write([]byte("9900402.00|AY1AZ0000\r")); err != nil {
		t.Fatal(err)
	}
	if got, _ := fr.ReadString('\r'); got != "96AZFEF6\r" {
		t.Fatalf("the first connection: %q", got)
	}
	second, sr := dial(t, addr)
	if !closed(second, sr) {
		t.Fatal("a second connection past MaxConns 1 stays open")
	}
	first.Close()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		third, tr := dial(t, addr)
		_, _ = third.Write([]byte("9900402.00|AY1AZ0000\r"))
		if got, _ := tr.ReadString('\r'); got == "96AZFEF6\r" {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Error("no connection was served after the first one closed")
}

// An idle connection is closed after Idle.
func TestServerClosesIdleConnections(t *testing.T) {
	addr := startServer(t, &Server{Idle: 50 * time.Millisecond})
	c, r := dial(t, addr)
	if !closed(c, r) {
		t.Error("an idle connection stays open past Idle")
	}
}
