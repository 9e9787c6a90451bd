package app

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

func TestRunHealthcheck(t *testing.T) {
	var ready atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/readyz" {
			http.NotFound(w, r)
			return
		}
		if !ready.Load() {
			http.Error(w, `{"error":"unavailable"}`, http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte(`{"status":"ok"}`))
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	// The wildcard form a container listens on is probed on the loopback.
	env := func(k string) string {
		if k == "LIBRARY_ADDR" {
			return ":" + port
		}
		return ""
	}
	var out bytes.Buffer
	if err := RunHealthcheck(context.Background(), env, nil, &out, &out); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("not ready: err = %v, want a 503 failure", err)
	}
	ready.Store(true)
	if err := RunHealthcheck(context.Background(), env, nil, &out, &out); err != nil {
		t.Fatalf("ready: %v", err)
	}

	srv.Close()
	if err := RunHealthcheck(context.Background(), env, nil, &out, &out); err == nil {
		t.Fatal("no server: healthcheck passed")
	}
}
