// Package ladonauthz implements ports.Authorizer over ory/ladon, with the
// policies loaded and strictly validated from the JSON files in policies/.
//
// Everything is denied unless an allow policy matches and no deny policy
// does. Subjects are role names (or "anonymous"); the request context is
// built here from the principal, so a caller can never pass its own tier,
// role, school or account id to a condition.
package ladonauthz

import (
	"context"
	"fmt"
	"slices"

	"github.com/ory/ladon"
	"github.com/ory/ladon/manager/memory"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// minMatcherCache is ladon's default regexp cache size; more distinct
// patterns than cache entries would recompile on every request.
const minMatcherCache = 512

// Authorizer decides access requests against the loaded policies. It is
// safe for concurrent use.
type Authorizer struct {
	warden   *ladon.Ladon
	policies []Policy
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
	for _, lp := range loaded {
		p := lp.policy
		if err := manager.Create(context.Background(), p); err != nil {
			return nil, fmt.Errorf("ladonauthz: %s: policy %q: %w", lp.file, p.ID, err)
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
	return &Authorizer{
		warden: &ladon.Ladon{
			Manager: manager,
			Matcher: ladon.NewRegexpMatcher(max(minMatcherCache, len(patterns))),
			// Set explicitly: ladon assigns a nil Metric lazily inside
			// IsAllowed, which is a data race under concurrent requests.
			Metric:      ladon.DefaultMetric,
			AuditLogger: ladon.DefaultAuditLogger,
		},
		policies: views,
	}, nil
}

// Authorize returns nil when an allow policy matches and no deny policy does.
// Errors: Forbidden "forbidden" for a default deny, a deny policy or any
// evaluation error (for example a regexp timeout); the ladon error is kept
// in Err for the logs.
func (a *Authorizer) Authorize(ctx context.Context, req ports.AccessRequest) error {
	r := &ladon.Request{
		Subject:  req.Principal.Subject(),
		Action:   req.Action,
		Resource: req.Resource,
		Context:  requestContext(req),
	}
	err := a.warden.IsAllowed(ctx, r)
	if err == nil {
		return nil
	}
	e := errs.E(errs.Forbidden, "forbidden", "You do not have permission to do this.")
	e.Err = fmt.Errorf("ladonauthz: %s %s on %s: %w", r.Subject, r.Action, r.Resource, err)
	return e
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
