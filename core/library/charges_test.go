package library_test

import (
	"strings"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
)

func TestChargeIDIsOnePerLoanAndKind(t *testing.T) {
	a := library.ChargeID("5d2b7f0e-0000-4000-8000-000000000001", library.ChargeReplacement)
	if a != library.ChargeID("5d2b7f0e-0000-4000-8000-000000000001", library.ChargeReplacement) {
		t.Fatal("the charge id of a loan and kind changes between calls")
	}
	for _, other := range []string{
		library.ChargeID("5d2b7f0e-0000-4000-8000-000000000001", library.ChargeDamage),
		library.ChargeID("5d2b7f0e-0000-4000-8000-000000000002", library.ChargeReplacement),
	} {
		if other == a {
			t.Fatalf("two loans or kinds share the charge id %s", a)
		}
	}
}

func TestReplacementCost(t *testing.T) {
	set := library.ChargeSettings{ReplacementCostCents: 1500}
	if got := library.ReplacementCost(library.Book{PriceCents: 2599}, set); got != 2599 {
		t.Errorf("priced book: %d, want its price", got)
	}
	if got := library.ReplacementCost(library.Book{}, set); got != 1500 {
		t.Errorf("book without a price: %d, want the school's 1500", got)
	}
	if got := library.ReplacementCost(library.Book{}, library.ChargeSettings{}); got != 0 {
		t.Errorf("no price, no default: %d, want 0 (no charge)", got)
	}
}

func TestStandingEvaluate(t *testing.T) {
	tests := []struct {
		name    string
		st      library.Standing
		set     library.ChargeSettings
		reasons []string
	}{
		{"NoThresholds", library.Standing{OverdueItems: 9, OpenCharges: 99999}, library.ChargeSettings{}, nil},
		{"BelowBoth", library.Standing{OverdueItems: 1, OpenCharges: 999}, library.ChargeSettings{BlockOverdueItems: 2, BlockChargesCents: 1000}, nil},
		{"AtOverdue", library.Standing{OverdueItems: 2}, library.ChargeSettings{BlockOverdueItems: 2}, []string{library.BlockOverdueItems}},
		{"AtCharges", library.Standing{OpenCharges: 1000}, library.ChargeSettings{BlockChargesCents: 1000}, []string{library.BlockCharges}},
		{"Both", library.Standing{OverdueItems: 3, OpenCharges: 5000}, library.ChargeSettings{BlockOverdueItems: 1, BlockChargesCents: 1}, []string{library.BlockOverdueItems, library.BlockCharges}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.st.Evaluate(tt.set)
			var reasons []string
			for _, b := range got.Blocks {
				reasons = append(reasons, b.Reason)
			}
			if len(reasons) != len(tt.reasons) || got.Blocked() != (len(tt.reasons) > 0) {
				t.Fatalf("blocks = %v, want %v", reasons, tt.reasons)
			}
			for i := range reasons {
				if reasons[i] != tt.reasons[i] {
					t.Fatalf("blocks = %v, want %v", reasons, tt.reasons)
				}
			}
			if len(tt.reasons) > 0 {
				err := library.ErrBorrowingBlocked(got)
				if errs.KindOf(err) != errs.Conflict || errs.CodeOf(err) != errs.CodeBorrowingBlocked {
					t.Fatalf("ErrBorrowingBlocked = %v", err)
				}
			}
		})
	}
	msg := library.ErrBorrowingBlocked(library.Standing{OpenCharges: 1250}.Evaluate(library.ChargeSettings{Currency: "EUR", BlockChargesCents: 1000})).Error()
	if want := "EUR 12.50 in open charges (the limit is EUR 10.00)"; !strings.Contains(msg, want) {
		t.Fatalf("message %q does not say %q", msg, want)
	}
}

func TestValidateChargeSettings(t *testing.T) {
	ok := library.DefaultSettings()
	for name, tc := range map[string]struct {
		c     library.ChargeSettings
		field string
	}{
		"Defaults":          {library.ChargeSettings{}, ""},
		"All":               {library.ChargeSettings{Currency: "GBP", ReplacementCostCents: 100, BlockOverdueItems: 3, BlockChargesCents: 500}, ""},
		"LowercaseCurrency": {library.ChargeSettings{Currency: "usd"}, "currency"},
		"LongCurrency":      {library.ChargeSettings{Currency: "EURO"}, "currency"},
		"NegativeCost":      {library.ChargeSettings{ReplacementCostCents: -1}, "replacement_cost_cents"},
		"HugeCost":          {library.ChargeSettings{ReplacementCostCents: library.MaxChargeCents + 1}, "replacement_cost_cents"},
		"NegativeOverdue":   {library.ChargeSettings{BlockOverdueItems: -1}, "block_overdue_items"},
		"NegativeCharges":   {library.ChargeSettings{BlockChargesCents: -5}, "block_charges_cents"},
	} {
		t.Run(name, func(t *testing.T) {
			s := ok
			s.ChargeSettings = tc.c
			err := library.ValidateSettings(s)
			if tc.field == "" {
				if err != nil {
					t.Fatalf("ValidateSettings = %v, want nil", err)
				}
				return
			}
			e, isErr := err.(*errs.Error)
			if !isErr || e.Details["fields"].(map[string]any)[tc.field] == nil {
				t.Fatalf("ValidateSettings = %v, want a message for %s", err, tc.field)
			}
		})
	}
}

func TestLoanStatusOfEndedLoans(t *testing.T) {
	today := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	l := library.Loan{ReturnedAt: today, Outcome: library.OutcomeLost}
	if got := library.LoanStatus(l, "2026-11-01", today); got != library.LoanLost {
		t.Errorf("lost loan: %q", got)
	}
	l.Outcome = library.OutcomeClaimsReturned
	if got := library.LoanStatus(l, "2026-11-01", today); got != library.LoanClaimsReturned {
		t.Errorf("claimed loan: %q", got)
	}
	l.Outcome = library.OutcomeReturned
	if got := library.LoanStatus(l, "2026-11-01", today); got != library.LoanReturned {
		t.Errorf("returned loan: %q", got)
	}
}

func TestFormatMoney(t *testing.T) {
	for cents, want := range map[int64]string{0: "USD 0.00", 5: "USD 0.05", 1999: "USD 19.99", -250: "USD -2.50"} {
		if got := library.FormatMoney(cents, "USD"); got != want {
			t.Errorf("FormatMoney(%d) = %q, want %q", cents, got, want)
		}
	}
}
