package httpedge

import (
	"net/url"
	"slices"
	"strings"
)

// withOwnOrigin adds the origin of the service's own public URL to the
// allowed origins: its own pages post forms to it, and a same-origin request
// is never a cross-site one, whatever LIBRARY_ALLOWED_ORIGINS lists.
func withOwnOrigin(origins []string, issuerURL string) []string {
	u, err := url.Parse(issuerURL)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return origins
	}
	own := []string{u.Scheme + "://" + u.Host}
	// On a developer's machine the same service is reached as localhost,
	// 127.0.0.1 or [::1]; a browser sends whichever was typed as the Origin.
	if loopbackNames[strings.ToLower(u.Hostname())] {
		port := ""
		if u.Port() != "" {
			port = ":" + u.Port()
		}
		own = own[:0]
		for _, host := range []string{"localhost", "127.0.0.1", "[::1]"} {
			own = append(own, u.Scheme+"://"+host+port)
		}
	}
	out := append([]string(nil), origins...)
	for _, o := range own {
		if !slices.ContainsFunc(out, func(have string) bool { return strings.EqualFold(have, o) }) {
			out = append(out, o)
		}
	}
	return out
}

var loopbackNames = map[string]bool{"localhost": true, "127.0.0.1": true, "::1": true}
