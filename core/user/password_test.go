package user_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/user"
)

func TestValidateNewPasswordLength(t *testing.T) {
	tests := []struct {
		name     string
		password string
		want     string
	}{
		{name: "Empty", password: "", want: user.PasswordRequired},
		{name: "NineChars", password: "Kq8vmt2xz", want: user.PasswordTooShort},
		{name: "TenChars", password: "Kq8vmt2xzw", want: ""},
		{name: "NineMultiByteRunes", password: "éàüßøñçæœ", want: user.PasswordTooShort}, // 18 bytes, 9 characters
		{name: "TenMultiByteRunes", password: "éàüßøñçæœð", want: ""},                    // 20 bytes, 10 characters
		{name: "FiveEmojiIsTooShort", password: "🔑🐢🌵🎻🧲", want: user.PasswordTooShort},    // 20 bytes, 5 characters
		{name: "Exactly1024Bytes", password: unrepeated(1024), want: ""},
		{name: "1025Bytes", password: unrepeated(1025), want: user.PasswordTooLong},
		{name: "Over1024BytesInRunes", password: strings.Repeat("é", 513), want: user.PasswordTooLong}, // 513 runes, 1026 bytes
		{name: "SpacesCountAsCharacters", password: "owl lamp sky", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := user.ValidateNewPassword(tt.password, "", ""); got != tt.want {
				t.Errorf("ValidateNewPassword(%d bytes) = %q, want %q", len(tt.password), got, tt.want)
			}
		})
	}
}

func TestValidateNewPasswordRefusesGuessable(t *testing.T) {
	for _, p := range []string{
		"0987654321", "1234567890", "qwertyuiop", "1qaz2wsx3edc", "abcdefghij", "aaaaaaaaaa", "password123", // the classics
		"basketball", "Manchester", "spongebob1", "myspace123", "princess12", "justinbieb", // listed as they are (breached)
		"password1234", "Password2024!", "football2024", "!!iloveyou99", "iloveyou12", // a listed word with digits or symbols around it
		"P@ssw0rd2024", "$unsh1ne123", // the same with letters swapped for look-alikes
		"aaaaaaaaaaaa", "abcabcabca", "passwordpassword", // repetitions
		"abcdefghijk", "9876543210", "ABCDEFGHIJ", "acegikmoqsuw", "aaabbbcccddd", // runs
		"zaq12wsxcde", "mnbvcxzlkj", "!QAZ@WSX#EDC$RFV", "poiuytrewqlkjh", "mjunhybgtvfr", // keyboard walks
		"azertyuiopqsdf", "qwertzuiopasdf", "7894561230", // other layouts, the keypad
		"9876543210zyx", "abcdefg1234567", "qwer2024!!", // walks and runs together, or with a year
	} {
		if got := user.ValidateNewPassword(p, "", ""); got != user.PasswordTooCommon {
			t.Errorf("ValidateNewPassword(%q) = %q, want %q", p, got, user.PasswordTooCommon)
		}
	}
}

func TestValidateNewPasswordAcceptsUncommon(t *testing.T) {
	for _, p := range []string{
		"correct horse battery staple", "Kj8#mQ2!vLp9", "tulip-granite-oboe", "dog8472619350",
		"owls read at noon", "Zx4rt9Lq0p", "maple reading hour 7", "purple monkey dishwasher",
		"sweet dresser", "was red sad!", // words that are short walks ("red", "was", "sad") stay words
		"8403917265", // ten random digits
	} {
		if got := user.ValidateNewPassword(p, "jane.smith@example.org", "Jane Smith"); got != "" {
			t.Errorf("ValidateNewPassword(%q) = %q, want it accepted", p, got)
		}
	}
}

func TestValidateNewPasswordRefusesNameAndEmail(t *testing.T) {
	const email, name = "Ada.Lovelace+books@school.example", "Ada Byron Lovelace"
	tests := []struct {
		password string
		want     string
	}{
		{"mylovelace-rules", user.PasswordHasName},      // a word of the name, any case
		{"BYRON the great 42", user.PasswordHasName},    // upper case
		{"adabyronlovelace!", user.PasswordHasName},     // the whole name without spaces
		{"L0velace and tea", user.PasswordHasName},      // a look-alike spelling
		{"books for everyone 7", user.PasswordHasEmail}, // a word of the email's local part
		{"ada.lovelace+books!!", user.PasswordHasName},  // the name is checked first
		{"x-ada.lovelace+books", user.PasswordHasName},  // the local part holds the name too
		{"school.example rocks", ""},                    // the domain is not personal
		{"adapt to every river", user.PasswordHasName},  // parts of three letters count: "ada" is in "adapt"
	}
	for _, tt := range tests {
		if got := user.ValidateNewPassword(tt.password, email, name); got != tt.want {
			t.Errorf("ValidateNewPassword(%q) = %q, want %q", tt.password, got, tt.want)
		}
	}
	// An email without a name (an invited librarian whose name is the local part).
	if got := user.ValidateNewPassword("quiet.river.stone9", "river@school.example", ""); got != user.PasswordHasEmail {
		t.Errorf("password holding the email's local part = %q, want %q", got, user.PasswordHasEmail)
	}
}

func TestValidateNewPasswordNeverEchoesThePassword(t *testing.T) {
	for _, p := range []string{"short1", "password1234", "janesmith-rocks", strings.Repeat("x", 2000)} {
		got := user.ValidateNewPassword(p, "jane@example.org", "Jane Smith")
		if got == "" || strings.Contains(got, p) {
			t.Errorf("ValidateNewPassword(%q) = %q: want a refusal that does not repeat the password", p, got)
		}
	}
}

// BenchmarkValidateNewPassword is the cost of the policy on one typical
// password, paid once per password set (next to an argon2id hash of tens of
// milliseconds).
func BenchmarkValidateNewPassword(b *testing.B) {
	for _, bb := range []struct{ name, password string }{
		{"Typical", "tulip-granite-oboe"},
		{"Common", "Password2024!"},
		{"Max1024Bytes", unrepeated(1024)},
	} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				user.ValidateNewPassword(bb.password, "jane.smith@example.org", "Jane Smith")
			}
		})
	}
}

// unrepeated returns n bytes of text with no repetition or common word.
func unrepeated(n int) string {
	var b strings.Builder
	for i := 1; b.Len() < n; i++ {
		b.WriteString(strconv.Itoa(i * 7919))
		b.WriteByte("qzxvkjw"[i%7])
	}
	return b.String()[:n]
}
