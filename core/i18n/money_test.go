package i18n_test

import (
	"testing"
	"time"

	"github.com/readinglibrary/service/core/i18n"
)

func TestMoney(t *testing.T) {
	tests := []struct {
		name  string
		lang  i18n.Lang
		cents int64
		code  string
		want  string
	}{
		{"EnglishAsBefore", i18n.English, 1250, "USD", "USD 12.50"},
		{"EnglishNegative", i18n.English, -375, "EUR", "EUR -3.75"},
		{"EnglishThousands", i18n.English, 123456, "USD", "USD 1234.56"},
		{"Spanish", i18n.Spanish, 1250, "USD", "12,50\u00a0US$"},
		{"SpanishEuroThousands", i18n.Spanish, 123456, "EUR", "1.234,56\u00a0€"},
		{"SpanishNegative", i18n.Spanish, -375, "EUR", "-3,75\u00a0€"},
		{"Arabic", i18n.Arabic, 1250, "USD", "\u200f١٢٫٥٠\u00a0US$"},
		{"ArabicThousands", i18n.Arabic, 123456, "USD", "\u200f١٬٢٣٤٫٥٦\u00a0US$"},
		{"ArabicNegative", i18n.Arabic, -1250, "USD", "\u061c-\u200f١٢٫٥٠\u00a0US$"},
		{"ArabicSaudiRiyal", i18n.Arabic, 1250, "SAR", "\u200f١٢٫٥٠\u00a0ر.س.\u200f"},
		{"JapaneseYenHasNoDecimals", i18n.Spanish, 120000, "JPY", "1.200\u00a0JPY"},
		{"JapaneseYenRoundsHalfUp", i18n.Spanish, 1250, "JPY", "13\u00a0JPY"},
		{"JapaneseYenArabic", i18n.Arabic, 120000, "JPY", "\u200f١٬٢٠٠\u00a0JP¥"},
		{"JapaneseYenEnglishAsBefore", i18n.English, 120000, "JPY", "JPY 1200.00"},
		{"DinarHasThreeDecimals", i18n.Spanish, 1250, "KWD", "12,500\u00a0KWD"},
		{"UnknownCodeAsItIs", i18n.Spanish, 1250, "ABC", "12,50\u00a0ABC"},
		{"UnknownCodeArabic", i18n.Arabic, 1250, "abc", "\u200f١٢٫٥٠\u00a0abc"},
		{"NoCode", i18n.Spanish, 1250, "", "12,50"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.lang.Money(tt.cents, tt.code); got != tt.want {
				t.Errorf("%s.Money(%d, %q) = %q, want %q", tt.lang, tt.cents, tt.code, got, tt.want)
			}
		})
	}
}

func TestMonth(t *testing.T) {
	tests := []struct {
		lang  i18n.Lang
		year  int
		month time.Month
		want  string
	}{
		{i18n.English, 2026, time.December, "2026-12"},
		{i18n.English, 2027, time.January, "2027-01"},
		{i18n.Spanish, 2026, time.December, "dic 2026"},
		{i18n.Spanish, 2026, time.September, "sept 2026"},
		{i18n.Arabic, 2026, time.December, "ديسمبر ٢٠٢٦"},
		{i18n.Arabic, 2027, time.May, "مايو ٢٠٢٧"},
	}
	for _, tt := range tests {
		if got := tt.lang.Month(tt.year, tt.month); got != tt.want {
			t.Errorf("%s.Month(%d, %s) = %q, want %q", tt.lang, tt.year, tt.month, got, tt.want)
		}
	}
}

func TestMonthText(t *testing.T) {
	if got := i18n.Spanish.MonthText("2026-12"); got != "dic 2026" {
		t.Errorf("MonthText(2026-12) = %q, want %q", got, "dic 2026")
	}
	if got := i18n.Arabic.MonthText("no month"); got != "no month" {
		t.Errorf("MonthText(no month) = %q, want it as it is", got)
	}
}

func TestAmountIsSaidInTheSentencesLanguage(t *testing.T) {
	const key = "%s in open charges (the limit is %s)"
	text := i18n.Phrase(key, i18n.Amount{Cents: 1500, Currency: "USD"}, i18n.Amount{Cents: 1000, Currency: "USD"})
	if got, want := text.String(), "USD 15.00 in open charges (the limit is USD 10.00)"; got != want {
		t.Errorf("in English: got %q, want %q", got, want)
	}
	if got, want := text.In(i18n.Spanish), i18n.Spanish.T(key, "15,00\u00a0US$", "10,00\u00a0US$"); got != want {
		t.Errorf("in Spanish: got %q, want %q", got, want)
	}
	if got, want := text.In(i18n.Arabic), i18n.Arabic.T(key, "\u200f١٥٫٠٠\u00a0US$", "\u200f١٠٫٠٠\u00a0US$"); got != want {
		t.Errorf("in Arabic: got %q, want %q", got, want)
	}
}
