package app

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// DemoPassword is the password of every demo account. It is published in the
// README, which is why demo data is only on by default with the embedded
// database on a developer's machine.
const DemoPassword = "reading-demo-2026"

// DemoAccount is one seeded account, for the start-up banner and tests.
type DemoAccount struct {
	Email    string
	Password string
	Role     user.Role
	Tier     user.Tier
}

// demoSchoolDomain is the demo school's domain; login redirects staff there.
const demoSchoolDomain = "maplegrove.example.org"

var demoAccounts = []struct {
	email, name string
	role        user.Role
	tier        user.Tier
	school      bool
}{
	{"admin@library.example.org", "Ada Admin", user.RoleAdmin, user.TierPremium, false},
	{"librarian@maplegrove.example.org", "Lena Librarian", user.RoleLibrarian, user.TierStandard, true},
	{"staff@maplegrove.example.org", "Sam Staff", user.RoleStaff, user.TierStandard, true},
	{"student@maplegrove.example.org", "Theo Student", user.RoleStudent, user.TierStandard, true},
	{"reader@library.example.org", "Rita Reader", user.RoleReader, user.TierStandard, false},
	{"premium@library.example.org", "Paul Premium", user.RoleReader, user.TierPremium, false},
}

// seedDemo fills an empty store with a demo school and its accounts. On a
// store that already has accounts it only reports which demo accounts are
// there, so the banner keeps showing them on later starts. Replicas seeding at
// once are harmless: every insert is unique-keyed and conflicts are ignored.
func seedDemo(ctx context.Context, repos ports.Repositories, identity *service.Identity) ([]DemoAccount, error) {
	n, err := repos.Accounts.Count(ctx)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		school, err := library.NewSchool(uuid.NewString(), "Maple Grove Primary School", demoSchoolDomain, time.Now())
		if err != nil {
			return nil, err
		}
		if err := repos.Schools.Create(ctx, school); err != nil && !errs.Is(err, errs.Conflict) {
			return nil, err
		}
		if school, err = repos.Schools.GetByDomain(ctx, demoSchoolDomain); err != nil {
			return nil, err
		}
		for _, d := range demoAccounts {
			in := service.NewAccountInput{Email: d.email, Password: DemoPassword, Name: d.name, Role: d.role, Tier: d.tier}
			if d.school {
				in.SchoolID = school.ID
			}
			if _, err := identity.CreateAccount(ctx, in); err != nil && !errs.Is(err, errs.Conflict) {
				return nil, fmt.Errorf("demo account %s: %w", d.email, err)
			}
		}
	}
	var present []DemoAccount
	for _, d := range demoAccounts {
		if _, err := repos.Accounts.GetByEmail(ctx, d.email); err == nil {
			present = append(present, DemoAccount{Email: d.email, Password: DemoPassword, Role: d.role, Tier: d.tier})
		}
	}
	return present, nil
}

// printBanner tells a newcomer where the service is and how to sign in.
func printBanner(w io.Writer, cfg Config, addr net.Addr, demo []DemoAccount) {
	base := cfg.IssuerURL
	if tcp, ok := addr.(*net.TCPAddr); ok && strings.HasSuffix(cfg.Addr, ":0") {
		base = fmt.Sprintf("http://127.0.0.1:%d", tcp.Port)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nReading library service listening on %s\n", base)
	if len(demo) > 0 {
		fmt.Fprintf(&b, "\nDemo accounts (password %q for all):\n", DemoPassword)
		for _, d := range demo {
			fmt.Fprintf(&b, "  %-36s %-10s %s\n", d.Email, d.Role, d.Tier)
		}
		fmt.Fprintf(&b, "\nTry it:\n")
		fmt.Fprintf(&b, "  TOKEN=$(curl -s %s/api/auth/login -H 'Content-Type: application/json' \\\n", base)
		fmt.Fprintf(&b, "    -d '{\"email\":\"%s\",\"password\":\"%s\"}' | sed -E 's/.*\"access_token\":\"([^\"]+)\".*/\\1/')\n", demo[0].Email, DemoPassword)
		fmt.Fprintf(&b, "  curl -s %s/v1/users/me -H \"Authorization: Bearer $TOKEN\"\n", base)
	}
	fmt.Fprintln(&b)
	_, _ = io.WriteString(w, b.String())
}
