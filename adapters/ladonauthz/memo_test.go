package ladonauthz

import (
	"context"
	"os"
	"slices"
	"testing"

	"github.com/ory/ladon"

	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// The decision memo must never change an answer: every role, action and
// resource of the shipped policies, asked twice with both tiers and several
// contexts, gets what ladon itself answers for that very request.
func TestMemoAgreesWithLadon(t *testing.T) {
	a, err := LoadFS(os.DirFS("../../policies"))
	if err != nil {
		t.Fatal(err)
	}
	var actions, resources []string
	for _, p := range a.Policies() {
		actions = append(actions, p.Actions...)
		resources = append(resources, p.Resources...)
	}
	// Each distinct pair once: policies share most of their actions and
	// resources, and a repeat asks the same question again.
	slices.Sort(actions)
	actions = slices.Compact(actions)
	slices.Sort(resources)
	resources = slices.Compact(resources)
	principals := []user.Principal{user.Anonymous}
	for _, role := range []user.Role{user.RoleReader, user.RoleStudent, user.RoleStaff, user.RoleLibrarian, user.RoleAdmin} {
		for _, tier := range []user.Tier{user.TierStandard, user.TierPremium} {
			principals = append(principals, user.Principal{AccountID: "a-1", SchoolID: "s-1", Role: role, Tier: tier})
		}
	}
	contexts := []map[string]any{nil, {"target_account": "a-1"}, {"target_school": "s-1"}, {"target_school": "s-2"}}
	asked, allowed := 0, 0
	// Ladon's own answer to each request, asked in the first round: the
	// second asks the memo the same requests in the same order.
	var ladons []bool
	for round := range 2 {
		n := 0
		for _, p := range principals {
			for _, act := range actions {
				for _, res := range resources {
					for _, c := range contexts {
						req := ports.AccessRequest{Principal: p, Action: act, Resource: res, Context: c}
						got := a.Authorize(context.Background(), req) == nil
						if round == 0 {
							ladons = append(ladons, a.warden.IsAllowed(context.Background(), &ladon.Request{
								Subject: p.Subject(), Action: act, Resource: res, Context: requestContext(req),
							}) == nil)
						}
						want := ladons[n]
						n++
						if got != want {
							t.Fatalf("round %d: %s (tier %s) %s on %s with %v: memo says allowed=%v, ladon %v", round, p.Subject(), p.Tier, act, res, c, got, want)
						}
						asked++
						if got {
							allowed++
						}
					}
				}
			}
		}
	}
	if allowed == 0 || allowed == asked {
		t.Fatalf("%d of %d allowed: the comparison is not exercising both answers", allowed, asked)
	}
	free := 0
	for _, d := range a.memo.m {
		if d.contextFree {
			free++
		}
	}
	if free == 0 || free == len(a.memo.m) {
		t.Fatalf("%d of %d memoized keys context-free: want some of each", free, len(a.memo.m))
	}
	t.Logf("%d requests compared (%d allowed); %d keys memoized, %d context-free", asked, allowed, len(a.memo.m), free)
}
