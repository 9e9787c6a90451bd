package ladonauthz

import (
	"os"
	"strings"
	"testing"

	"github.com/ory/ladon"
)

// The matcher answers as ladon's own regexp2 matcher does, for every entry
// of the shipped policies against every action and resource they name and
// near misses of them (prefixes, suffixes, other letter case).
func TestTemplateMatcherAgreesWithLadons(t *testing.T) {
	a, err := LoadFS(os.DirFS("../../policies"))
	if err != nil {
		t.Fatal(err)
	}
	ours, theirs := a.warden.Matcher, ladon.NewRegexpMatcher(512)
	var haystacks [][]string
	var needles []string
	for _, p := range a.Policies() {
		for _, list := range [][]string{p.Subjects, p.Actions, p.Resources} {
			haystacks = append(haystacks, list)
			for _, s := range list {
				needles = append(needles, s)
				for _, part := range strings.Split(strings.NewReplacer("<", "|", ">", "|").Replace(s), "|") {
					needles = append(needles, part, part+"x", "x"+part, strings.ToUpper(part))
				}
			}
		}
	}
	needles = append(needles, "", "users:profile:admin", "users:profile:reader:x", "users:profile:")
	policy := &ladon.DefaultPolicy{}
	matched := 0
	for _, h := range haystacks {
		for _, n := range needles {
			want, err := theirs.Matches(policy, h, n)
			if err != nil {
				t.Fatalf("ladon's matcher on %q, %q: %v", h, n, err)
			}
			got, err := ours.Matches(policy, h, n)
			if err != nil || got != want {
				t.Fatalf("%q against %q: %v, %v; ladon's matcher says %v", n, h, got, err, want)
			}
			if got {
				matched++
			}
		}
	}
	if matched == 0 {
		t.Fatal("nothing matched: the comparison proves nothing")
	}
	t.Logf("%d haystacks × %d needles, %d matches, all as ladon's matcher answers", len(haystacks), len(needles), matched)
}

// A template outside the loaded policies is compiled on the spot, and one
// with unbalanced delimiters is an error, which denies the request.
func TestTemplateMatcherOtherTemplates(t *testing.T) {
	m, err := newTemplateMatcher(map[string]struct{}{"books:<read|list>": {}})
	if err != nil {
		t.Fatal(err)
	}
	p := &ladon.DefaultPolicy{}
	for _, c := range []struct {
		haystack, needle string
		want             bool
	}{
		{"books:<read|list>", "books:read", true},
		{"books:<read|list>", "books:reader", false},
		{"books:<read|list>", "xbooks:list", false},
		{"shelf.<[0-9]+>", "shelf.12", true},
		{"shelf.<[0-9]+>", "shelfx12", false}, // the dot is literal outside <...>
		{"plain", "plain", true},
	} {
		if got, err := m.Matches(p, []string{c.haystack}, c.needle); err != nil || got != c.want {
			t.Errorf("%q against %q: %v, %v; want %v", c.needle, c.haystack, got, err, c.want)
		}
	}
	if _, err := m.Matches(p, []string{"books:<read"}, "books:read"); err == nil {
		t.Fatal("an unbalanced template matched without an error")
	}
	if _, err := newTemplateMatcher(map[string]struct{}{"a:<(>": {}}); err == nil || !strings.Contains(err.Error(), `"a:<(>"`) {
		t.Fatalf("a template that does not compile: %v, want an error naming it", err)
	}
}
