// Package ladonauthz implements ports.Authorizer over ory/ladon, with the
// policies loaded and strictly validated from the JSON files in policies/.
//
// Everything is denied unless an allow policy matches and no deny policy
// does. Subjects are role names (or "anonymous"); the request context is
// built here from the principal, so a caller can never pass its own tier,
// role, school or account id to a condition.
//
// Like every adapter it may import ports, the core packages and outside
// libraries, but no other adapter and nothing under cmd (the layer rules of
// test/architecture_test.go).
package ladonauthz

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/ory/ladon"
	"github.com/ory/ladon/manager/memory"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// Authorizer decides access requests against the loaded policies. It is
// safe for concurrent use.
type Authorizer struct {
	warden   *ladon.Ladon
	policies []Policy
	// conditional are the policies with conditions: a request that one of
	// them matches depends on its context and is never answered from memo.
	conditional []ladon.Policy
	memo        decisionMemo
}

var _ ports.Authorizer = (*Authorizer)(nil)

// Policy is a read-only copy of one loaded policy.
type Policy struct {
	File        string // the file it was loaded from
	ID          string
	Description string
	Effect      string // "allow" or "deny"
	Subjects    []string
	Actions     []string
	Resources   []string
	Conditions  map[string]string // context key -> condition type
}

// newAuthorizer builds the warden over validated policies.
func newAuthorizer(loaded []loadedPolicy) (*Authorizer, error) {
	manager := memory.NewMemoryManager()
	patterns := map[string]struct{}{}
	views := make([]Policy, 0, len(loaded))
	var conditional []ladon.Policy
	for _, lp := range loaded {
		p := lp.policy
		if err := manager.Create(context.Background(), p); err != nil {
			return nil, fmt.Errorf("ladonauthz: %s: policy %q: %w", lp.file, p.ID, err)
		}
		if len(p.Conditions) > 0 {
			conditional = append(conditional, p)
		}
		for _, list := range [][]string{p.Subjects, p.Actions, p.Resources} {
			for _, s := range list {
				if isTemplate(s) {
					patterns[s] = struct{}{}
				}
			}
		}
		views = append(views, viewOf(lp))
	}
	matcher, err := newTemplateMatcher(patterns)
	if err != nil {
		return nil, fmt.Errorf("ladonauthz: %w", err)
	}
	return &Authorizer{
		warden: &ladon.Ladon{
			Manager: manager,
			Matcher: matcher,
			// Set explicitly: ladon assigns a nil Metric lazily inside
			// IsAllowed, which is a data race under concurrent requests.
			Metric:      ladon.DefaultMetric,
			AuditLogger: ladon.DefaultAuditLogger,
		},
		policies:    views,
		conditional: conditional,
	}, nil
}

// Authorize returns nil when an allow policy matches and no deny policy does.
// Errors: Forbidden "forbidden" for a default deny, a deny policy or any
// evaluation error (a template that does not compile); the ladon error is
// kept in Err for the logs.
func (a *Authorizer) Authorize(ctx context.Context, req ports.AccessRequest) error {
	key := decisionKey{subject: req.Principal.Subject(), action: req.Action, resource: req.Resource}
	d, known := a.memo.get(key)
	if known && d.contextFree {
		return denied(key, d.cause)
	}
	r := &ladon.Request{
		Subject:  key.subject,
		Action:   req.Action,
		Resource: req.Resource,
		Context:  requestContext(req),
	}
	err := a.warden.IsAllowed(ctx, r)
	if !known {
		// Ladon's answer can be reused only when no policy with conditions
		// matches this subject, action and resource, and the answer is a
		// decision rather than an evaluation error.
		free := !a.conditionalMatch(r) && (err == nil || errors.Is(err, ladon.ErrRequestDenied) || errors.Is(err, ladon.ErrRequestForcefullyDenied))
		a.memo.put(key, decision{contextFree: free, cause: err})
	}
	return denied(key, err)
}

// denied wraps a ladon error in the service's Forbidden error; nil stays nil.
func denied(key decisionKey, cause error) error {
	if cause == nil {
		return nil
	}
	e := errs.E(errs.Forbidden, errs.CodeForbidden, "You do not have permission to do this.")
	e.Err = fmt.Errorf("ladonauthz: %s %s on %s: %w", key.subject, key.action, key.resource, cause)
	return e
}

// conditionalMatch reports whether a policy with conditions matches r's
// subject, action and resource, or whether that cannot be told (a matcher
// error), in which case the request must always go to ladon.
func (a *Authorizer) conditionalMatch(r *ladon.Request) bool {
	for _, p := range a.conditional {
		if a.matches(p, p.GetSubjects(), r.Subject) && a.matches(p, p.GetActions(), r.Action) && a.matches(p, p.GetResources(), r.Resource) {
			return true
		}
	}
	return false
}

// matches is ladon's matcher for one field; an error counts as a match so
// the request is never memoized.
func (a *Authorizer) matches(p ladon.Policy, patterns []string, value string) bool {
	ok, err := a.warden.Matcher.Matches(p, patterns, value)
	return ok || err != nil
}

// requestContext merges the route's facts with the principal's; the
// principal's keys are always set (empty when unknown) and always win.
func requestContext(req ports.AccessRequest) ladon.Context {
	c := make(ladon.Context, len(req.Context)+len(serverKeys))
	for k, v := range req.Context {
		c[k] = v
	}
	p := req.Principal
	if p.IsAnonymous() {
		p = user.Anonymous
	}
	c[KeyAccountID] = p.AccountID
	c[KeySchoolID] = p.SchoolID
	c[KeyTier] = string(p.Tier)
	c[KeyRole] = p.Subject()
	return c
}

// Policies returns copies of the loaded policies in load order (files by
// name, then their order within the file).
func (a *Authorizer) Policies() []Policy {
	out := make([]Policy, len(a.policies))
	for i, p := range a.policies {
		p.Subjects = slices.Clone(p.Subjects)
		p.Actions = slices.Clone(p.Actions)
		p.Resources = slices.Clone(p.Resources)
		conds := make(map[string]string, len(p.Conditions))
		for k, v := range p.Conditions {
			conds[k] = v
		}
		p.Conditions = conds
		out[i] = p
	}
	return out
}

func viewOf(lp loadedPolicy) Policy {
	p := lp.policy
	conds := make(map[string]string, len(p.Conditions))
	for k, c := range p.Conditions {
		conds[k] = c.GetName()
	}
	return Policy{
		File:        lp.file,
		ID:          p.ID,
		Description: p.Description,
		Effect:      p.Effect,
		Subjects:    slices.Clone(p.Subjects),
		Actions:     slices.Clone(p.Actions),
		Resources:   slices.Clone(p.Resources),
		Conditions:  conds,
	}
}
