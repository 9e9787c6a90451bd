package httpedge

import (
	"strings"
	"testing"
)

func TestOwnOriginIncludesLoopbackSpellings(t *testing.T) {
	tests := []struct {
		issuer string
		extra  []string
		want   []string
	}{
		{"https://library.example.org", nil, []string{"https://library.example.org"}},
		{"https://library.example.org/", []string{"https://app.example.org"}, []string{"https://app.example.org", "https://library.example.org"}},
		{"http://localhost:8080", nil, []string{"http://localhost:8080", "http://127.0.0.1:8080", "http://[::1]:8080"}},
		{"http://127.0.0.1:9", []string{"HTTP://LOCALHOST:9"}, []string{"HTTP://LOCALHOST:9", "http://127.0.0.1:9", "http://[::1]:9"}},
		{"not a url", []string{"https://a.example.org"}, []string{"https://a.example.org"}},
	}
	for _, tt := range tests {
		if got := withOwnOrigin(tt.extra, tt.issuer); strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("withOwnOrigin(%v, %q) = %v, want %v", tt.extra, tt.issuer, got, tt.want)
		}
	}
}
