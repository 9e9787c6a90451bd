// Package outbound is the HTTP client the service calls other servers
// with: a school's catalogue server (adapters/sru) and the identity
// providers the operator configured (adapters/oidcverify). A school's
// settings name the catalogue server, so a librarian chooses where the
// service connects; this client keeps that from reaching the service's own
// network.
//
//   - Every address is checked when the connection is made, after DNS: the
//     name is resolved once, every address it resolves to must pass (one
//     refused address refuses the name), and the connection goes to the
//     checked address, so a DNS answer that changes between a check and a
//     connect cannot slip through. Loopback, private, carrier-grade NAT,
//     link-local (cloud metadata), unique-local, multicast, reserved and
//     unspecified addresses are refused, in IPv4, IPv6, IPv4-mapped and
//     NAT64 forms (addresses.go says why each block).
//   - A Policy lets the operator allow host names and address blocks of a
//     school's own servers, and turn the public internet off.
//   - Proxies from the environment are not used: a proxy would connect for
//     the service, past the check.
//   - Only http and https are asked, at every redirect too (at most
//     MaxRedirects); no cookies are kept and no credentials are sent (a
//     URL's user and password, Authorization and Cookie headers are
//     dropped).
//   - Each call is bounded in time and its answer in size.
//
// Errors name what was refused and why (RefusedError, ErrTooLarge): they
// are for the operator's log. Callers answer users without them.
//
// Like every adapter it may import ports, the core packages and outside
// libraries, but no other adapter and nothing under cmd (the layer rules of
// test/architecture_test.go); cmd builds its clients and hands them to the
// adapters that call out.
package outbound

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"syscall"
	"time"
)

// Bounds of a client's calls.
const (
	// DefaultTimeout bounds a whole call, the answer read included.
	DefaultTimeout = 10 * time.Second
	// DefaultMaxBytes bounds an answer's body.
	DefaultMaxBytes = 2 << 20
	// MaxRedirects is how many redirects a call follows.
	MaxRedirects = 3
	// dialTimeout bounds one connection attempt.
	dialTimeout = 5 * time.Second
	// maxHeaderBytes bounds an answer's headers.
	maxHeaderBytes = 64 << 10
)

// ErrRefused is what every refused destination matches (errors.Is).
var ErrRefused = errors.New("outbound: destination refused")

// ErrTooLarge is the error of an answer larger than the client's cap.
var ErrTooLarge = errors.New("outbound: answer larger than the cap")

// RefusedError says which destination was refused and why.
type RefusedError struct {
	Host   string     // the name or address asked for
	Addr   netip.Addr // the address refused; invalid when refused before any lookup
	Reason string
}

// Error names the destination and the reason, for the operator's log.
func (e *RefusedError) Error() string {
	if e.Addr.IsValid() && e.Addr.String() != e.Host {
		return fmt.Sprintf("outbound: %s (%s) refused: %s", e.Host, e.Addr, e.Reason)
	}
	return fmt.Sprintf("outbound: %s refused: %s", e.Host, e.Reason)
}

// Is makes every RefusedError match ErrRefused.
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// Limits bound one client's calls; zero fields take the defaults.
type Limits struct {
	Timeout  time.Duration // a whole call, answer read included
	MaxBytes int64         // an answer's body
}

// resolver looks names up; net.DefaultResolver in service.
type resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// guard connects only where its policy allows.
type guard struct {
	policy   Policy
	resolver resolver
	// dial connects to an address that passed the check; tests watch it.
	dial func(ctx context.Context, network, address string, d *net.Dialer) (net.Conn, error)
}

// NewClient returns a client that calls only what p allows, within l. Its
// redirects are checked as its first request is; a caller that wants
// fewer wraps CheckRedirect.
func NewClient(p Policy, l Limits) *http.Client {
	return newClient(&guard{policy: p, resolver: net.DefaultResolver, dial: realDial}, l)
}

func realDial(ctx context.Context, network, address string, d *net.Dialer) (net.Conn, error) {
	return d.DialContext(ctx, network, address)
}

func newClient(g *guard, l Limits) *http.Client {
	if l.Timeout <= 0 {
		l.Timeout = DefaultTimeout
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	base := &http.Transport{
		Proxy:                  nil, // an environment proxy would connect past the check
		DialContext:            g.dialContext,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    dialTimeout,
		ResponseHeaderTimeout:  l.Timeout,
		MaxResponseHeaderBytes: maxHeaderBytes,
		MaxIdleConns:           16,
		IdleConnTimeout:        90 * time.Second,
	}
	return &http.Client{
		Transport:     &transport{base: base, maxBytes: l.MaxBytes},
		CheckRedirect: checkRedirect,
		Timeout:       l.Timeout,
	}
}

// checkRedirect follows at most MaxRedirects redirects, to http and https
// only; the address of each is checked when it is connected to.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > MaxRedirects {
		return fmt.Errorf("outbound: more than %d redirects", MaxRedirects)
	}
	return checkScheme(req)
}

func checkScheme(req *http.Request) error {
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return &RefusedError{Host: req.URL.Hostname(), Reason: "only http and https are asked, not " + strconv.Quote(req.URL.Scheme)}
	}
	return nil
}

// transport sends a request without credentials and caps its answer.
type transport struct {
	base     http.RoundTripper
	maxBytes int64
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := checkScheme(req); err != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, err
	}
	r := req.Clone(req.Context())
	r.URL.User = nil
	for _, h := range []string{"Authorization", "Proxy-Authorization", "Cookie"} {
		r.Header.Del(h)
	}
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	if resp.ContentLength > t.maxBytes {
		_ = resp.Body.Close()
		return nil, fmt.Errorf("%w: %d bytes announced, at most %d read", ErrTooLarge, resp.ContentLength, t.maxBytes)
	}
	resp.Body = &cappedBody{ReadCloser: resp.Body, left: t.maxBytes}
	return resp, nil
}

// cappedBody reads at most left bytes of an answer; one more is an error,
// not a silent cut.
type cappedBody struct {
	io.ReadCloser
	left int64
	over bool
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.over {
		return 0, ErrTooLarge
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.ReadCloser.Read(p)
	if int64(n) > b.left {
		n, b.left, b.over = int(b.left), 0, true
		return n, ErrTooLarge
	}
	b.left -= int64(n)
	return n, err
}

// dialContext resolves the host once, checks every address, and connects
// to a checked address; the dialer checks the address again as it
// connects.
func (g *guard) dialContext(ctx context.Context, network, address string) (net.Conn, error) {
	var lookup string
	switch network {
	case "tcp":
		lookup = "ip"
	case "tcp4":
		lookup = "ip4"
	case "tcp6":
		lookup = "ip6"
	default:
		return nil, &RefusedError{Host: address, Reason: "network " + network + " is not asked"}
	}
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	named := g.policy.allowsName(host)
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		if !named && !g.policy.Public {
			// Not looked up either: a name nobody allowed costs no DNS query.
			return nil, &RefusedError{Host: host, Reason: "not on the allow list, and public addresses are not called"}
		}
		if addrs, err = g.resolver.LookupNetIP(ctx, lookup, host); err != nil {
			return nil, err
		}
		if len(addrs) == 0 {
			return nil, &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
		}
	}
	if !named {
		for _, a := range addrs {
			if why := g.policy.allowsAddr(a); why != "" {
				return nil, &RefusedError{Host: host, Addr: a.WithZone(""), Reason: why}
			}
		}
	}
	d := &net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second, Control: g.control(host, named)}
	var last error
	for _, a := range addrs {
		conn, err := g.dial(ctx, network, net.JoinHostPort(a.String(), port), d)
		if err == nil {
			return conn, nil
		}
		last = err
	}
	return nil, last
}

// control checks the address a socket is about to connect to, the last
// step before any packet leaves.
func (g *guard) control(host string, named bool) func(network, address string, _ syscall.RawConn) error {
	return func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return &RefusedError{Host: host, Reason: "unreadable address " + strconv.Quote(address)}
		}
		if named {
			return nil
		}
		if why := g.policy.allowsAddr(ap.Addr()); why != "" {
			return &RefusedError{Host: host, Addr: ap.Addr(), Reason: why}
		}
		return nil
	}
}
