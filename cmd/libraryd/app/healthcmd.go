package app

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// RunHealthcheck is `libraryd healthcheck`: GET /readyz on this host's
// LIBRARY_ADDR and fail unless it answers 200. It is the container image's
// HEALTHCHECK, since a scratch image has no HTTP client to run one.
func RunHealthcheck(ctx context.Context, getenv func(string) string, args []string, stdout, stderr io.Writer) error {
	addr := getenv("LIBRARY_ADDR")
	if addr == "" {
		addr = ":8080"
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("LIBRARY_ADDR %q: %w", addr, err)
	}
	// A wildcard listen address is reached on the loopback.
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+net.JoinHostPort(host, port)+"/readyz", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET /readyz: %s", resp.Status)
	}
	fmt.Fprintln(stdout, "ready")
	return nil
}
