package portfake

import (
	"context"

	"github.com/readinglibrary/service/ports"
)

// Hasher is a ports.PasswordHasher that stores a password reversibly as
// "h:"+password: hashing cost is not what the tests that use it look at.
type Hasher struct{}

var _ ports.PasswordHasher = Hasher{}

func (Hasher) Hash(p string) (string, error)     { return "h:" + p, nil }
func (Hasher) Verify(enc, p string) (bool, bool) { return enc == "h:"+p, false }
func (Hasher) VerifyDummy(string)                {}

// OpenThrottle is a ports.LoginThrottle that lets every attempt through and
// hands out no device token.
type OpenThrottle struct{}

var _ ports.LoginThrottle = OpenThrottle{}

func (OpenThrottle) Admit(context.Context, ports.LoginKeys) (ports.LoginAttempt, error) {
	return openAttempt{}, nil
}
func (OpenThrottle) Lift(context.Context, string) error { return nil }

// openAttempt is an attempt OpenThrottle let through; settling it counts
// nothing.
type openAttempt struct{}

func (openAttempt) Failed(context.Context) error { return nil }
func (openAttempt) Succeeded(context.Context) (ports.DeviceToken, error) {
	return ports.DeviceToken{}, nil
}
func (openAttempt) Release(context.Context) {}
