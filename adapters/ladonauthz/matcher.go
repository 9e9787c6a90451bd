package ladonauthz

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/ory/ladon"
)

// templateMatcher is ladon's Matcher with Go's regexp in place of regexp2.
// Ladon's own gives each match a 250 ms timeout, measured by regexp2's
// coarse clock: on a saturated CPU even a "<read|list>" match can run past
// it, and ladon then fails the whole decision, refusing a request the
// policies allow (a sign-in answered 401 on a loaded test machine). Go's
// regexp runs in time linear in its input, so it needs no timeout. The
// templates are ladon's: text with <...> segments holding a regexp, which
// load checked to be plain RE2.
type templateMatcher struct {
	// compiled holds every template of the loaded policies, compiled once
	// at load; it is only read afterwards.
	compiled map[string]*regexp.Regexp
}

// newTemplateMatcher compiles the templates of the loaded policies.
func newTemplateMatcher(templates map[string]struct{}) (*templateMatcher, error) {
	m := &templateMatcher{compiled: make(map[string]*regexp.Regexp, len(templates))}
	for t := range templates {
		re, err := compileTemplate(t, '<', '>')
		if err != nil {
			return nil, err
		}
		m.compiled[t] = re
	}
	return m, nil
}

// Matches reports whether needle matches one of haystack's entries: equal
// text, or a template's regexp matching the whole needle.
func (m *templateMatcher) Matches(p ladon.Policy, haystack []string, needle string) (bool, error) {
	for _, h := range haystack {
		if strings.IndexByte(h, p.GetStartDelimiter()) < 0 {
			if h == needle {
				return true, nil
			}
			continue
		}
		re, ok := m.compiled[h]
		if !ok {
			// Not from the loaded policies (a caller's own policy): compiled
			// each time rather than kept, so nothing grows.
			var err error
			if re, err = compileTemplate(h, p.GetStartDelimiter(), p.GetEndDelimiter()); err != nil {
				return false, err
			}
		}
		if re.MatchString(needle) {
			return true, nil
		}
	}
	return false, nil
}

// compileTemplate turns a ladon template into an anchored regexp: the text
// outside the delimiters literally, each outermost <...> segment as a group.
func compileTemplate(t string, start, end byte) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteByte('^')
	level, from := 0, 0
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case start:
			if level++; level == 1 {
				b.WriteString(regexp.QuoteMeta(t[from:i]))
				from = i + 1
			}
		case end:
			if level--; level == 0 {
				b.WriteString("(" + t[from:i] + ")")
				from = i + 1
			} else if level < 0 {
				return nil, fmt.Errorf("template %q: unbalanced delimiters", t)
			}
		}
	}
	if level != 0 {
		return nil, fmt.Errorf("template %q: unbalanced delimiters", t)
	}
	b.WriteString(regexp.QuoteMeta(t[from:]))
	b.WriteByte('$')
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("template %q: %w", t, err)
	}
	return re, nil
}
