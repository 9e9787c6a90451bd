package oidcverify

import (
	"net"
	"net/url"
	"strings"
	"testing"
)

// FuzzParseIssuers checks the issuer list setting: it never panics, and
// every accepted issuer is an https URL, or http on a loopback host, with a
// host name, no query or fragment, listed once, with a non-empty audience.
func FuzzParseIssuers(f *testing.F) {
	for _, s := range []string{
		"https://accounts.example.org=readinglibrary;school=maplegrove.example.org",
		"https://a.example.org=aud1;domains=a.org|b.org, https://b.example.org/realms/x=aud2;school=6f1c2a9e-0000-4000-8000-000000000001;typ=at+jwt",
		"http://localhost:8080=aud;school=s.org,http://127.0.0.1:9000/realms/test=aud;school=s.org,http://[::1]:8443=aud;domains=s.org",
		"https://a.example.org=aud;school=s.org;domains=s.org",
		"https://a.example.org=aud;;school=s.org",
		"http://idp.example.org=aud",
		"https://a.example.org=aud,https://a.example.org=aud",
		"https://a.example.org?x=1=aud",
		"https://a.example.org#frag=aud",
		"https://a.example.org=",
		"=aud",
		"https://a.example.org",
		"https://user:pw@a.example.org=aud",
		"http://localhost@evil.example=aud",
		"http://127.0.0.1.evil.example=aud",
		"http://[::ffff:127.0.0.1]=aud",
		"HTTPS://A.EXAMPLE.ORG=aud",
		"https:///path=aud",
		"https:opaque=aud",
		"//a.example.org=aud",
		"https://a.example.org/a=b=aud",
		"ftp://a.example.org=aud",
		" , ,, ",
		"",
		"https://a.example.org\x00=aud",
		"https://%zz=aud",
		"https://[::1=aud",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		issuers, err := ParseIssuers(s)
		if err != nil {
			if issuers != nil {
				t.Fatalf("ParseIssuers(%q) gave %v and the error %v", s, issuers, err)
			}
			return
		}
		parts := 0
		for _, p := range strings.Split(s, ",") {
			if strings.TrimSpace(p) != "" {
				parts++
			}
		}
		if len(issuers) != parts {
			t.Fatalf("ParseIssuers(%q) gave %d issuers for %d entries: %+v", s, len(issuers), parts, issuers)
		}
		seen := map[string]bool{}
		for _, is := range issuers {
			u, err := url.Parse(is.URL)
			if err != nil {
				t.Fatalf("ParseIssuers(%q) accepted %q, which does not parse: %v", s, is.URL, err)
			}
			host := u.Hostname()
			loopbackHost := host == "localhost"
			if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
				loopbackHost = true
			}
			switch {
			case u.Scheme != "https" && !(u.Scheme == "http" && loopbackHost):
				t.Fatalf("ParseIssuers(%q) accepted %q: scheme %q on host %q", s, is.URL, u.Scheme, host)
			case host == "":
				t.Fatalf("ParseIssuers(%q) accepted %q, which names no host", s, is.URL)
			case strings.ContainsAny(is.URL, "?#"):
				// Even an empty query or fragment ("https://idp?") breaks the
				// discovery URL built by appending a path to the issuer.
				t.Fatalf("ParseIssuers(%q) accepted %q, which has a query or fragment", s, is.URL)
			case is.Audience == "" || strings.TrimSpace(is.Audience) != is.Audience || strings.ContainsAny(is.Audience, ",=;"):
				t.Fatalf("ParseIssuers(%q) accepted the audience %q", s, is.Audience)
			case (is.School == "") == (len(is.EmailDomains) == 0):
				t.Fatalf("ParseIssuers(%q) accepted %q bound to school %q and domains %q: want exactly one", s, is.URL, is.School, is.EmailDomains)
			case strings.TrimSpace(is.URL) != is.URL || strings.Contains(is.URL, ","):
				t.Fatalf("ParseIssuers(%q) accepted the URL %q", s, is.URL)
			case seen[is.URL]:
				t.Fatalf("ParseIssuers(%q) lists %q twice", s, is.URL)
			}
			seen[is.URL] = true
		}
	})
}
