package i18n

import (
	"fmt"
	"io"
	"strings"
	"time"

	"golang.org/x/text/currency"
	"golang.org/x/text/language"
	"golang.org/x/text/number"
)

// Money writes an amount the service keeps in hundredths of the currency's
// unit (what the charges and prices hold, whatever the currency) as the
// language writes an amount of that currency.
//
// English keeps the service's own "USD 12.50" (the code, then two
// decimals), which scripts and people already read. Spanish and Arabic
// write it as CLDR does: the number as Number writes it, rounded to the
// currency's own decimals (none for JPY, three for KWD), then a no-break
// space and the language's symbol ("12,50 US$", "‏١٢٫٥٠ US$"; Arabic
// starts with a right-to-left mark, as CLDR's pattern does). A code that is
// no ISO 4217 currency is written as it is, after two decimals.
//
// golang.org/x/text/currency gives the symbols and decimals from CLDR, and
// the language's message.Printer the digits and separators; the position
// of the symbol is ours, since x/text always puts it first.
func (l Lang) Money(cents int64, code string) string {
	if l == English || l == "" {
		sign := ""
		if cents < 0 {
			sign, cents = "-", -cents
		}
		return fmt.Sprintf("%s %s%d.%02d", code, sign, cents/100, cents%100)
	}
	p := printers[l]
	if p == nil {
		return English.Money(cents, code)
	}
	symbol, scale := code, 2
	if unit, err := currency.ParseISO(code); err == nil {
		symbol = p.Sprint(currency.Symbol(unit))
		scale, _ = currency.Standard.Rounding(unit)
	}
	// Rounded in integers first (half away from zero, as CLDR rounds an
	// amount), so the float handed to the printer needs no rounding.
	if scale < 2 {
		step := int64(1)
		for range 2 - scale {
			step *= 10
		}
		half := step / 2
		if cents < 0 {
			half = -half
		}
		cents = (cents + half) / step * step
	}
	amount := p.Sprint(number.Decimal(float64(cents)/100, number.Scale(scale)))
	if l == Arabic {
		// The mark goes after a minus sign, before the first digit.
		at := strings.IndexFunc(amount, func(r rune) bool { return r >= '٠' && r <= '٩' })
		if at < 0 {
			at = 0
		}
		amount = amount[:at] + "\u200f" + amount[at:]
	}
	if symbol == "" {
		return amount
	}
	return amount + "\u00a0" + symbol
}

// Amount is an amount of money as an argument of T or of a Text (a
// sentence the core builds, said later): it is written as the language
// saying the sentence writes money (Money), and as English writes it
// where plain fmt formats it.
type Amount struct {
	Cents    int64 // hundredths of the currency's unit
	Currency string
}

// Format writes the amount in the language of the message.Printer
// formatting it, which its state names.
func (a Amount) Format(s fmt.State, _ rune) {
	l := English
	if p, ok := s.(interface{ Language() language.Tag }); ok {
		base, _ := p.Language().Base()
		for _, candidate := range all {
			if b, _ := candidate.tag().Base(); b == base {
				l = candidate
			}
		}
	}
	io.WriteString(s, l.Money(a.Cents, a.Currency))
}

// shortMonths are the months as a month and year name them short (CLDR's
// abbreviated forms; Arabic has none shorter than the full name).
var shortMonths = map[Lang][12]string{
	Spanish: {"ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sept", "oct", "nov", "dic"},
	Arabic:  months[Arabic],
}

// Month names a month of a year, as a report's table or chart labels it:
// 2026-12 in English (what the service has always shown, and what the
// <time datetime> it sits in holds), and CLDR's short month and year
// elsewhere, "dic 2026" and "ديسمبر ٢٠٢٦".
func (l Lang) Month(year int, month time.Month) string {
	names, ok := shortMonths[l]
	if !ok || month < time.January || month > time.December {
		return fmt.Sprintf("%04d-%02d", year, int(month))
	}
	out := fmt.Sprintf("%s %d", names[month-1], year)
	if l == Arabic {
		out = arabicDigits(out)
	}
	return out
}

// MonthText is Month for a month the pages hold as YYYY-MM; any other text
// is returned as it is.
func (l Lang) MonthText(iso string) string {
	t, err := time.Parse("2006-01", iso)
	if err != nil {
		return iso
	}
	return l.Month(t.Year(), t.Month())
}
