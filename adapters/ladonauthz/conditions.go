package ladonauthz

import (
	"context"
	"sync"

	"github.com/ory/ladon"
)

// Context keys the authorizer fills from the principal on every request.
// They always win over a key of the same name in AccessRequest.Context.
const (
	KeyAccountID = "account_id"
	KeySchoolID  = "school_id"
	KeyTier      = "tier"
	KeyRole      = "role"
)

// serverKeys are the context keys built from the principal.
var serverKeys = []string{KeyAccountID, KeySchoolID, KeyTier, KeyRole}

// SameSchoolCondition passes when the value under its context key is a
// non-empty string equal to the caller's school (Context["school_id"]). Use
// it for "the resource belongs to the caller's school": the route puts the
// resource's school under the condition's key.
type SameSchoolCondition struct{}

// GetName returns the condition's type name used in policy JSON.
func (*SameSchoolCondition) GetName() string { return "SameSchoolCondition" }

// Fulfills reports whether value is the caller's (non-empty) school id.
func (*SameSchoolCondition) Fulfills(_ context.Context, value any, r *ladon.Request) bool {
	return equalNonEmpty(value, r, KeySchoolID)
}

// EqualsAccountCondition passes when the value under its context key is a
// non-empty string equal to the caller's account id (Context["account_id"]).
// Use it for ownership: the route puts the resource owner's id under the
// condition's key.
type EqualsAccountCondition struct{}

// GetName returns the condition's type name used in policy JSON.
func (*EqualsAccountCondition) GetName() string { return "EqualsAccountCondition" }

// Fulfills reports whether value is the caller's (non-empty) account id.
func (*EqualsAccountCondition) Fulfills(_ context.Context, value any, r *ladon.Request) bool {
	return equalNonEmpty(value, r, KeyAccountID)
}

func equalNonEmpty(value any, r *ladon.Request, key string) bool {
	v, ok := value.(string)
	if !ok || v == "" || r == nil {
		return false
	}
	want, ok := r.Context[key].(string)
	return ok && want != "" && v == want
}

// selfReferencingKey maps a custom condition to the context key it compares
// against; a policy that puts the condition on that very key would compare
// the caller's value with itself and always pass.
var selfReferencingKey = map[string]string{
	(*SameSchoolCondition)(nil).GetName():    KeySchoolID,
	(*EqualsAccountCondition)(nil).GetName(): KeyAccountID,
}

var registerOnce sync.Once

// registerConditions adds the custom conditions to ladon's global factory
// map. ladon reads that map while unmarshalling policies, so this must run
// before the first unmarshal and never concurrently with requests.
func registerConditions() {
	registerOnce.Do(func() {
		ladon.ConditionFactories[(*SameSchoolCondition)(nil).GetName()] = func() ladon.Condition { return new(SameSchoolCondition) }
		ladon.ConditionFactories[(*EqualsAccountCondition)(nil).GetName()] = func() ladon.Condition { return new(EqualsAccountCondition) }
	})
}
