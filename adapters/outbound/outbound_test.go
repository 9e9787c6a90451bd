package outbound

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestRefusalOfAddresses checks the address check alone, connecting to
// nothing: every form of loopback, private, link-local (metadata),
// unique-local, multicast, reserved and unspecified address is refused,
// public ones pass.
func TestRefusalOfAddresses(t *testing.T) {
	refused := []string{
		"127.0.0.1", "127.1.2.3", "0.0.0.0", "0.1.2.3", "10.0.0.1", "10.255.255.255", "172.16.0.1", "172.31.255.255",
		"192.168.1.1", "100.64.0.1", "100.100.100.200", "169.254.169.254", "169.254.0.1", "192.0.0.170", "192.0.2.1",
		"198.18.0.1", "198.19.255.255", "198.51.100.7", "203.0.113.9", "192.88.99.1", "224.0.0.1", "239.255.255.250",
		"240.0.0.1", "255.255.255.255",
		"::", "::1", "fe80::1", "fe80::1%eth0", "fc00::1", "fd00:ec2::254", "ff02::1", "ff05::2", "fec0::1", "100::1",
		"::127.0.0.1", "64:ff9b:1::a00:1", "2001:db8::1", "2002:7f00:1::1", "2001:0:4136:e378::1", "3fff::1",
		// IPv4 in IPv6 clothing: mapped and NAT64 forms of the blocks above.
		"::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:10.0.0.1", "::ffff:169.254.169.254", "::ffff:0.0.0.0",
		"64:ff9b::127.0.0.1", "64:ff9b::a9fe:a9fe", "64:ff9b::192.168.0.1",
	}
	for _, s := range refused {
		if why := refusal(netip.MustParseAddr(s)); why == "" {
			t.Errorf("refusal(%s) = \"\", want it refused", s)
		}
	}
	public := []string{"8.8.8.8", "140.147.249.7", "1.1.1.1", "100.63.255.255", "100.128.0.0", "172.32.0.1", "192.169.0.1",
		"2606:4700:4700::1111", "2a00:1450:4001:80b::200e", "::ffff:8.8.8.8", "64:ff9b::8.8.8.8"}
	for _, s := range public {
		if why := refusal(netip.MustParseAddr(s)); why != "" {
			t.Errorf("refusal(%s) = %q, want it public", s, why)
		}
	}
	if why := refusal(netip.MustParseAddr("169.254.169.254")); !strings.Contains(why, "metadata") {
		t.Errorf("refusal(169.254.169.254) = %q, want it to say cloud metadata", why)
	}
}

func TestPolicyAllowsWhatTheOperatorNamed(t *testing.T) {
	p, err := NewPolicy(" koha.School.LAN. , 10.20.0.0/16, 192.168.7.9, fd12:3456::/32 ,", true)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		addr  string
		allow bool
	}{
		{"10.20.3.4", true}, {"::ffff:10.20.3.4", true}, {"10.21.0.1", false}, {"192.168.7.9", true}, {"192.168.7.10", false},
		{"fd12:3456::1", true}, {"fd12:3457::1", false}, {"127.0.0.1", false}, {"169.254.169.254", false}, {"8.8.8.8", true},
	} {
		if got := p.allowsAddr(netip.MustParseAddr(tt.addr)) == ""; got != tt.allow {
			t.Errorf("allowsAddr(%s) = %v, want %v", tt.addr, got, tt.allow)
		}
	}
	if !p.allowsName("KOHA.school.lan") || p.allowsName("school.lan") || p.allowsName("evil-koha.school.lan") {
		t.Errorf("allowsName: the named host alone must be allowed, by name and case-insensitively: %v", p.Hosts)
	}
	closed, _ := NewPolicy("127.0.0.0/8", false)
	if closed.allowsAddr(netip.MustParseAddr("8.8.8.8")) == "" || closed.allowsAddr(netip.MustParseAddr("127.0.0.1")) != "" {
		t.Error("a policy without the public internet must allow the allow list only")
	}
	for _, bad := range []string{"http://koha.lan", "koha.lan:8080", "koha.lan/sru", "*.school.lan", "10.0.0.0/33", "fe80::1%eth0", "a..b"} {
		if _, err := NewPolicy(bad, true); err == nil {
			t.Errorf("NewPolicy(%q) error = nil", bad)
		}
	}
}

// fakeResolver answers every name with addrs and counts lookups.
type fakeResolver struct {
	addrs   []netip.Addr
	lookups atomic.Int32
}

func (f *fakeResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	f.lookups.Add(1)
	return f.addrs, nil
}

// watchedClient is a client whose lookups answer addrs and whose
// connections are recorded; real connections are made only to loopback
// addresses (a test server), any other fails without a packet.
func watchedClient(t *testing.T, p Policy, addrs ...string) (*http.Client, *fakeResolver, func() []string) {
	t.Helper()
	res := &fakeResolver{}
	for _, a := range addrs {
		res.addrs = append(res.addrs, netip.MustParseAddr(a))
	}
	var mu sync.Mutex
	var dialed []string
	g := &guard{policy: p, resolver: res, dial: func(ctx context.Context, network, address string, d *net.Dialer) (net.Conn, error) {
		mu.Lock()
		dialed = append(dialed, address)
		mu.Unlock()
		if ap, err := netip.ParseAddrPort(address); err == nil && ap.Addr().IsLoopback() {
			return d.DialContext(ctx, network, address)
		}
		return nil, errors.New("test: no connection leaves this machine")
	}}
	return newClient(g, Limits{Timeout: 5 * time.Second}), res, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), dialed...)
	}
}

// countingServer is a loopback server that counts the connections it
// accepts.
func countingServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	var n atomic.Int32
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			n.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &n
}

func get(c *http.Client, url string) (string, error) {
	resp, err := c.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

func TestLoopbackIsReachedOnlyWhenAllowed(t *testing.T) {
	srv, accepted := countingServer(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "hello") })
	refused := NewClient(Policy{Public: true}, Limits{})
	for _, u := range []string{srv.URL, strings.Replace(srv.URL, "127.0.0.1", "[::ffff:127.0.0.1]", 1), strings.Replace(srv.URL, "127.0.0.1", "0.0.0.0", 1)} {
		if _, err := get(refused, u); !errors.Is(err, ErrRefused) {
			t.Errorf("GET %s without the allow setting: error %v, want refused", u, err)
		}
	}
	if n := accepted.Load(); n != 0 {
		t.Fatalf("the loopback server accepted %d connections, want 0", n)
	}
	p, _ := NewPolicy("127.0.0.0/8", false)
	if body, err := get(NewClient(p, Limits{}), srv.URL); err != nil || body != "hello" {
		t.Fatalf("GET with 127.0.0.0/8 allowed = %q, %v; want hello", body, err)
	}
	if accepted.Load() == 0 {
		t.Error("the allowed server accepted no connection")
	}
}

// A name is resolved once, every address must pass, and the connection
// goes to the address checked: an answer mixing a public and a private
// address is refused whole, before any connection.
func TestNamesAreCheckedAtEveryResolvedAddress(t *testing.T) {
	for _, tt := range []struct {
		name  string
		addrs []string
	}{
		{"metadata", []string{"169.254.169.254"}},
		{"private", []string{"10.0.0.7"}},
		{"loopback", []string{"127.0.0.1"}},
		{"mapped loopback", []string{"::ffff:127.0.0.1"}},
		{"public then private", []string{"93.184.216.34", "192.168.0.10"}},
		{"unique-local", []string{"2606:4700::1", "fd00::1"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, res, dialed := watchedClient(t, Policy{Public: true}, tt.addrs...)
			_, err := get(c, "http://catalogue.example.org/sru")
			var re *RefusedError
			if !errors.As(err, &re) || re.Host != "catalogue.example.org" || !re.Addr.IsValid() {
				t.Fatalf("error = %v, want a RefusedError naming the host and the address", err)
			}
			if res.lookups.Load() != 1 || len(dialed()) != 0 {
				t.Errorf("lookups %d, connections %v; want 1 lookup and no connection", res.lookups.Load(), dialed())
			}
		})
	}
	c, _, dialed := watchedClient(t, Policy{Public: true}, "93.184.216.34")
	if _, err := get(c, "http://catalogue.example.org:210/sru"); errors.Is(err, ErrRefused) {
		t.Fatalf("a public address was refused: %v", err)
	}
	if got := dialed(); len(got) != 1 || got[0] != "93.184.216.34:210" {
		t.Errorf("connections = %v, want the checked address 93.184.216.34:210", got)
	}
}

// Without the public internet, a name nobody allowed is refused before it
// is looked up: no DNS query and no connection leave the machine.
func TestClosedPolicyLooksNothingUp(t *testing.T) {
	p, _ := NewPolicy("127.0.0.0/8,::1", false)
	c, res, dialed := watchedClient(t, p, "140.147.249.7")
	_, err := get(c, "http://lx2.loc.gov:210/LCDB?query=x")
	if !errors.Is(err, ErrRefused) {
		t.Fatalf("error = %v, want refused", err)
	}
	if res.lookups.Load() != 0 || len(dialed()) != 0 {
		t.Errorf("lookups %d, connections %v; want none", res.lookups.Load(), dialed())
	}
	if _, err := get(c, "http://140.147.249.7/"); !errors.Is(err, ErrRefused) || len(dialed()) != 0 {
		t.Errorf("a public address without the public internet: error %v, connections %v; want refused, none", err, dialed())
	}
}

// A host the operator named is called at the address it resolves to, even
// a private one.
func TestNamedHostIsCalledAtItsPrivateAddress(t *testing.T) {
	srv, accepted := countingServer(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "koha") })
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	p, _ := NewPolicy("koha.school.lan", false)
	c, res, _ := watchedClient(t, p, "127.0.0.1")
	if body, err := get(c, "http://koha.school.lan:"+port+"/"); err != nil || body != "koha" {
		t.Fatalf("GET the named host = %q, %v", body, err)
	}
	if res.lookups.Load() != 1 || accepted.Load() != 1 {
		t.Errorf("lookups %d, connections %d; want 1 and 1", res.lookups.Load(), accepted.Load())
	}
	if _, err := get(c, "http://other.school.lan:"+port+"/"); !errors.Is(err, ErrRefused) || accepted.Load() != 1 {
		t.Errorf("another name at the same address: %v, connections %d; want refused", err, accepted.Load())
	}
}

func TestControlRefusesTheAddressAsTheSocketConnects(t *testing.T) {
	g := &guard{policy: Policy{Public: true}}
	if err := g.control("x", false)("tcp", "127.0.0.1:80", nil); !errors.Is(err, ErrRefused) {
		t.Errorf("control(127.0.0.1:80) = %v, want refused", err)
	}
	if err := g.control("x", false)("tcp6", "[fe80::1%eth0]:80", nil); !errors.Is(err, ErrRefused) {
		t.Errorf("control(fe80::1%%eth0) = %v, want refused", err)
	}
	if err := g.control("x", false)("tcp", "93.184.216.34:443", nil); err != nil {
		t.Errorf("control(public) = %v, want nil", err)
	}
}

// Every redirect is checked again: its scheme at once, its address when it
// is connected to.
func TestRedirectsAreCheckedAgain(t *testing.T) {
	var target string
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/ok" {
			_, _ = io.WriteString(w, "ok")
			return
		}
		http.Redirect(w, r, target, http.StatusFound)
	})
	p, _ := NewPolicy("127.0.0.0/8", true)
	c, _, dialed := watchedClient(t, p)
	for _, to := range []string{"http://169.254.169.254/latest/meta-data/", "http://[::ffff:a9fe:a9fe]/", "http://10.0.0.1:8080/",
		"file:///etc/passwd", "gopher://127.0.0.1:70/", "ftp://127.0.0.1/"} {
		target = to
		before := len(dialed())
		if _, err := get(c, srv.URL+"/start"); !errors.Is(err, ErrRefused) {
			t.Errorf("redirect to %s: error %v, want refused", to, err)
		}
		// One connection to the test server at most (kept alive), none elsewhere.
		for _, d := range dialed()[before:] {
			if !strings.HasPrefix(d, "127.0.0.1:") {
				t.Errorf("redirect to %s connected to %s", to, d)
			}
		}
	}
	target = srv.URL + "/ok"
	if body, err := get(c, srv.URL+"/start"); err != nil || body != "ok" {
		t.Errorf("an allowed redirect = %q, %v", body, err)
	}
	target = srv.URL + "/start" // a loop
	if _, err := get(c, srv.URL+"/start"); err == nil || !strings.Contains(err.Error(), "redirects") {
		t.Errorf("a redirect loop: error %v, want it stopped after %d", err, MaxRedirects)
	}
}

// No credentials leave: not a URL's user and password, not Authorization or
// Cookie headers, not a cookie a server set.
func TestNoCredentialsAreSent(t *testing.T) {
	var mu sync.Mutex
	var seen []http.Header
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Clone())
		mu.Unlock()
		if r.URL.Path == "/first" {
			http.SetCookie(w, &http.Cookie{Name: "session", Value: "s3cret"})
			http.Redirect(w, r, "/second", http.StatusFound)
		}
	})
	p, _ := NewPolicy("127.0.0.0/8", false)
	c := NewClient(p, Limits{})
	req, _ := http.NewRequest(http.MethodGet, strings.Replace(srv.URL, "http://", "http://librarian:pa55word@", 1)+"/first", nil)
	req.Header.Set("Authorization", "Bearer token-of-a-librarian")
	req.Header.Set("Cookie", "library_access=abc")
	req.Header.Set("Proxy-Authorization", "Basic eDp5")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(seen) != 2 {
		t.Fatalf("the server saw %d requests, want 2 (the redirect followed)", len(seen))
	}
	for i, h := range seen {
		for _, name := range []string{"Authorization", "Cookie", "Proxy-Authorization"} {
			if v := h.Get(name); v != "" {
				t.Errorf("request %d carried %s: %q", i+1, name, v)
			}
		}
	}
}

// Proxies from the environment are not used: the connection goes to the
// checked address, never to the proxy.
func TestEnvironmentProxiesAreNotUsed(t *testing.T) {
	proxy, accepted := countingServer(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "proxied") })
	t.Setenv("HTTP_PROXY", proxy.URL)
	t.Setenv("HTTPS_PROXY", proxy.URL)
	t.Setenv("NO_PROXY", "")
	c, _, dialed := watchedClient(t, Policy{Public: true}, "93.184.216.34")
	_, _ = get(c, "http://catalogue.example.org/sru")
	if got := dialed(); len(got) != 1 || got[0] != "93.184.216.34:80" || accepted.Load() != 0 {
		t.Errorf("connections %v, proxy accepted %d; want only 93.184.216.34:80 and no proxy", got, accepted.Load())
	}
}

func TestAnswersAreCappedInSize(t *testing.T) {
	const limit = 1000
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		n := limit
		if r.URL.Path == "/big" {
			n = limit + 1
		}
		if r.URL.Path == "/chunked" {
			w.(http.Flusher).Flush() // no Content-Length: the cap is met while reading
			n = 10 * limit
		}
		_, _ = w.Write([]byte(strings.Repeat("x", n)))
	})
	p, _ := NewPolicy("127.0.0.0/8", false)
	c := NewClient(p, Limits{MaxBytes: limit})
	if body, err := get(c, srv.URL+"/exact"); err != nil || len(body) != limit {
		t.Errorf("an answer of exactly the cap: %d bytes, %v", len(body), err)
	}
	for _, path := range []string{"/big", "/chunked"} {
		if body, err := get(c, srv.URL+path); !errors.Is(err, ErrTooLarge) || len(body) > limit {
			t.Errorf("GET %s: %d bytes, error %v; want ErrTooLarge and at most %d bytes", path, len(body), err, limit)
		}
	}
}

func TestCallsAreCappedInTime(t *testing.T) {
	release := make(chan struct{})
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	p, _ := NewPolicy("127.0.0.0/8", false)
	_, err := get(NewClient(p, Limits{Timeout: 100 * time.Millisecond}), srv.URL)
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("a server that never answers: error %v, want a timeout", err)
	}
}
