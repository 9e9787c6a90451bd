package ladonauthz

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"

	"github.com/ory/ladon"
	"github.com/ory/ladon/compiler"

	"github.com/readinglibrary/service/core/user"
)

// knownSubjects are the only policy subjects: the roles and "anonymous".
var knownSubjects = map[string]bool{
	user.SubjectAnonymous:      true,
	string(user.RoleReader):    true,
	string(user.RoleStudent):   true,
	string(user.RoleStaff):     true,
	string(user.RoleTeacher):   true,
	string(user.RoleLibrarian): true,
	string(user.RoleAdmin):     true,
}

// policyFields and conditionFields are the exact JSON keys accepted. Go's
// decoder would otherwise ignore a misspelt "conditions" (widening an allow
// policy) and match keys case-insensitively.
var (
	policyFields    = map[string]bool{"id": true, "description": true, "subjects": true, "effect": true, "resources": true, "actions": true, "conditions": true, "meta": true}
	conditionFields = map[string]bool{"type": true, "options": true}
)

type loadedPolicy struct {
	file   string
	policy *ladon.DefaultPolicy
}

// Load reads every *.json file in dir (in name order), each a JSON array of
// ladon policies, validates them and returns an Authorizer over them. It
// reports every problem found, each naming the file and the policy id.
// Validation rejects: invalid JSON, unknown fields, unknown condition types
// or options, an effect other than exactly "allow" or "deny", an empty id,
// empty or unknown subjects, empty actions or resources, uppercase letters
// in actions or resources (matching is case-sensitive), duplicate ids across
// files, and patterns that can cross a ':' separator (".", or a class
// admitting ':'), that fold case, or that nest quantifiers. A directory
// without policy files is an error too.
func Load(dir string) (*Authorizer, error) {
	return loadFS(os.DirFS(dir), dir)
}

// LoadFS is Load over the *.json files at the root of fsys, such as the
// policies embedded in the binary.
func LoadFS(fsys fs.FS) (*Authorizer, error) {
	return loadFS(fsys, "embedded policies")
}

// loadFS does the work of Load; dir names the source in error messages.
func loadFS(fsys fs.FS, dir string) (*Authorizer, error) {
	registerConditions()

	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("ladonauthz: read policy directory: %w", err)
	}
	var (
		loaded  []loadedPolicy
		problem []error
		seen    = map[string]string{} // id -> file
		files   int
	)
	for _, e := range entries { // os.ReadDir sorts by name
		if e.IsDir() || filepath.Ext(e.Name()) != ".json" {
			continue
		}
		files++
		path := filepath.Join(dir, e.Name())
		ps, errs := loadFile(fsys, e.Name(), path)
		problem = append(problem, errs...)
		for _, lp := range ps {
			if first, dup := seen[lp.policy.ID]; dup {
				problem = append(problem, fmt.Errorf("ladonauthz: %s: policy %q: duplicate id (first defined in %s)", path, lp.policy.ID, first))
				continue
			}
			seen[lp.policy.ID] = path
			loaded = append(loaded, lp)
		}
	}
	if files == 0 {
		return nil, fmt.Errorf("ladonauthz: no *.json policy files in %s", dir)
	}
	if err := errors.Join(problem...); err != nil {
		return nil, err
	}
	if len(loaded) == 0 {
		return nil, fmt.Errorf("ladonauthz: no policies in %s", dir)
	}
	return newAuthorizer(loaded)
}

// loadFile parses and validates one file; policies with problems are left
// out of the result.
func loadFile(fsys fs.FS, name, path string) ([]loadedPolicy, []error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, []error{fmt.Errorf("ladonauthz: %s: %w", path, err)}
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil {
		return nil, []error{fmt.Errorf("ladonauthz: %s: invalid JSON (want an array of policies): %w", path, err)}
	}
	var (
		out      []loadedPolicy
		problems []error
	)
	for i, raw := range raws {
		p, errs := parsePolicy(raw)
		if len(errs) > 0 {
			name := fmt.Sprintf("policy #%d", i+1)
			if p != nil && p.ID != "" {
				name = fmt.Sprintf("policy %q", p.ID)
			}
			for _, e := range errs {
				problems = append(problems, fmt.Errorf("ladonauthz: %s: %s: %w", path, name, e))
			}
			continue
		}
		out = append(out, loadedPolicy{file: path, policy: p})
	}
	return out, problems
}

// parsePolicy decodes and validates one policy. It returns the policy (with
// at least its id when that could be read) and the problems found.
func parsePolicy(raw json.RawMessage) (*ladon.DefaultPolicy, []error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, []error{fmt.Errorf("not a JSON object: %w", err)}
	}
	// Decode the plain fields first, so that every problem of the policy
	// is reported at once, conditions included.
	var shape struct {
		ID        string   `json:"id"`
		Subjects  []string `json:"subjects"`
		Effect    string   `json:"effect"`
		Resources []string `json:"resources"`
		Actions   []string `json:"actions"`
	}
	var problems []error
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		if !policyFields[k] {
			problems = append(problems, fmt.Errorf("unknown field %q", k))
		}
	}
	if err := json.Unmarshal(raw, &shape); err != nil {
		_ = json.Unmarshal(fields["id"], &shape.ID)
		problems = append(problems, err)
	} else {
		problems = append(problems, validatePolicy(&ladon.DefaultPolicy{
			ID: shape.ID, Subjects: shape.Subjects, Effect: shape.Effect, Resources: shape.Resources, Actions: shape.Actions,
		})...)
	}
	if c, ok := fields["conditions"]; ok {
		problems = append(problems, checkConditions(c)...)
	}
	if len(problems) > 0 {
		return &ladon.DefaultPolicy{ID: shape.ID}, problems
	}

	p := &ladon.DefaultPolicy{}
	if err := json.Unmarshal(raw, p); err != nil {
		return &ladon.DefaultPolicy{ID: shape.ID}, []error{err}
	}
	return p, nil
}

// checkConditions decodes each condition strictly: exact keys, a known type
// and options without unknown fields.
func checkConditions(raw json.RawMessage) []error {
	var conds map[string]map[string]json.RawMessage
	if err := json.Unmarshal(raw, &conds); err != nil {
		return []error{fmt.Errorf("conditions: want an object of {\"type\", \"options\"}: %w", err)}
	}
	var problems []error
	for _, key := range slices.Sorted(maps.Keys(conds)) {
		c := conds[key]
		for _, k := range slices.Sorted(maps.Keys(c)) {
			if !conditionFields[k] {
				problems = append(problems, fmt.Errorf("condition %q: unknown field %q", key, k))
			}
		}
		var typ string
		if err := json.Unmarshal(c["type"], &typ); err != nil || typ == "" {
			problems = append(problems, fmt.Errorf("condition %q: missing or invalid type", key))
			continue
		}
		factory, ok := ladon.ConditionFactories[typ]
		if !ok {
			problems = append(problems, fmt.Errorf("condition %q: unknown condition type %q", key, typ))
			continue
		}
		if self, ok := selfReferencingKey[typ]; ok && key == self {
			problems = append(problems, fmt.Errorf("condition %q: %s on the %q key compares the caller with itself; put the resource's value under another key", key, typ, self))
		}
		cond := factory()
		if opts := c["options"]; len(opts) > 0 && string(opts) != "null" {
			dec := json.NewDecoder(bytes.NewReader(opts))
			dec.DisallowUnknownFields()
			if err := dec.Decode(cond); err != nil {
				problems = append(problems, fmt.Errorf("condition %q (%s): invalid options: %w", key, typ, err))
				continue
			}
		}
		if se, ok := cond.(*ladon.StringEqualCondition); ok && se.Equals == "" {
			// An empty "equals" would pass for an absent value such as the
			// anonymous caller's tier.
			problems = append(problems, fmt.Errorf("condition %q (%s): options.equals must not be empty", key, typ))
		}
	}
	return problems
}

// validatePolicy checks what ladon accepts silently but gets wrong.
func validatePolicy(p *ladon.DefaultPolicy) []error {
	var problems []error
	add := func(format string, args ...any) { problems = append(problems, fmt.Errorf(format, args...)) }

	if p.ID == "" {
		add("empty id")
	}
	if p.Effect != ladon.AllowAccess && p.Effect != ladon.DenyAccess {
		add("effect %q must be exactly %q or %q (ladon treats anything else as deny)", p.Effect, ladon.AllowAccess, ladon.DenyAccess)
	}
	if len(p.Subjects) == 0 {
		add("empty subjects")
	}
	for _, s := range p.Subjects {
		if !knownSubjects[s] {
			add("unknown subject %q (subjects are role names: anonymous, reader, student, staff, librarian, admin)", s)
		}
	}
	for _, list := range []struct {
		name  string
		items []string
	}{{"actions", p.Actions}, {"resources", p.Resources}} {
		if len(list.items) == 0 {
			add("empty %s", list.name)
		}
		for _, s := range list.items {
			if err := checkTemplate(s); err != nil {
				add("%s: %v", list.name, err)
			}
		}
	}
	return problems
}

// isTemplate reports whether ladon treats s as a pattern.
func isTemplate(s string) bool { return strings.Contains(s, "<") }

// checkTemplate validates one action or resource string.
func checkTemplate(s string) error {
	if s == "" {
		return errors.New("empty entry")
	}
	literal, segments, err := splitTemplate(s)
	if err != nil {
		return err
	}
	if strings.IndexFunc(literal, unicode.IsUpper) >= 0 {
		return fmt.Errorf("%q has uppercase letters; requests are lowercase and matched case-sensitively", s)
	}
	if len(segments) == 0 {
		return nil
	}
	if _, err := compiler.CompileRegex(s, '<', '>'); err != nil {
		return fmt.Errorf("pattern %q does not compile: %v", s, err)
	}
	for _, seg := range segments {
		re, err := syntax.Parse(seg, syntax.Perl)
		if err != nil {
			return fmt.Errorf("pattern %q: <%s> is not plain RE2 syntax: %v", s, seg, err)
		}
		if err := checkRegexp(re, false); err != nil {
			return fmt.Errorf("pattern %q: <%s> %v", s, seg, err)
		}
	}
	return nil
}

// splitTemplate separates the literal text of a ladon template from its
// <...> regexp segments, with ladon's nesting rules.
func splitTemplate(s string) (literal string, segments []string, err error) {
	var lit strings.Builder
	level, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<':
			if level++; level == 1 {
				start = i + 1
			}
			continue
		case '>':
			if level == 0 {
				return "", nil, fmt.Errorf("%q has an unbalanced '>'", s)
			}
			if level--; level == 0 {
				segments = append(segments, s[start:i])
			}
			continue
		}
		if level == 0 {
			lit.WriteByte(s[i])
		}
	}
	if level != 0 {
		return "", nil, fmt.Errorf("%q has an unbalanced '<'", s)
	}
	return lit.String(), segments, nil
}

// checkRegexp rejects the pattern features that make policies wider or
// slower than they look.
func checkRegexp(re *syntax.Regexp, inRepeat bool) error {
	if re.Flags&syntax.FoldCase != 0 {
		return errors.New("is case-insensitive; list the exact lowercase values")
	}
	switch re.Op {
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return errors.New("matches any character, ':' included, so it crosses separators; use a class such as <[^:]+>")
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i] <= ':' && ':' <= re.Rune[i+1] {
				return errors.New("has a character class that admits ':', so it crosses separators; exclude ':' as in <[^:]+>")
			}
		}
	case syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
		unbounded := re.Op != syntax.OpRepeat || re.Max == -1 || re.Max > 1
		if unbounded {
			if inRepeat {
				return errors.New("nests quantifiers, which can backtrack for the whole 250 ms match timeout")
			}
			inRepeat = true
		}
	}
	for _, sub := range re.Sub {
		if err := checkRegexp(sub, inRepeat); err != nil {
			return err
		}
	}
	return nil
}
