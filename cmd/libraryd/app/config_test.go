package app

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestConfigDefaults(t *testing.T) {
	c, err := LoadConfig(envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.MetricsAddr != "127.0.0.1:9090" || c.MetricsToken != "" || c.SweepInterval != time.Hour {
		t.Fatalf("metrics and sweep defaults = %q %q %v", c.MetricsAddr, c.MetricsToken, c.SweepInterval)
	}
	if c, err := LoadConfig(envOf(map[string]string{"LIBRARY_METRICS_ADDR": "off"})); err != nil || c.MetricsAddr != "" {
		t.Fatalf("LIBRARY_METRICS_ADDR=off: %q, %v; want no metrics listener", c.MetricsAddr, err)
	}
	if c.Addr != ":8080" || !c.Embedded() || c.DataDir != "./data" || !c.DemoData || c.AccessTokenTTL != 15*time.Minute ||
		!c.CookieSecure || c.IssuerURL != "http://localhost:8080" || c.RateAnonymous.Limit != 100 || c.RateAuthenticated.Limit != 1000 ||
		c.RatePremium.Limit != 10000 || c.RatePremium.Period != time.Hour || len(c.AllowedOrigins) != 1 || c.AllowedOrigins[0] != "http://localhost:8080" {
		t.Fatalf("defaults = %+v", c)
	}
	if c.Signup != "verify" || c.SMTP.Host != "" || c.SMTP.TLS != "starttls" || c.SMTP.Port != 587 || c.SMTP.From != "noreply@localhost" {
		t.Fatalf("mail defaults = signup %q, smtp %+v", c.Signup, c.SMTP)
	}
	// Credentials never travel in clear text.
	_, err = LoadConfig(envOf(map[string]string{"LIBRARY_SMTP_HOST": "smtp.example.org", "LIBRARY_SMTP_TLS": "none",
		"LIBRARY_SMTP_USERNAME": "library", "LIBRARY_SMTP_PASSWORD": "smtp-secret-pw"}))
	if err == nil || !strings.Contains(err.Error(), "LIBRARY_SMTP_TLS") || strings.Contains(err.Error(), "smtp-secret-pw") {
		t.Fatalf("credentials without TLS: %v, want LIBRARY_SMTP_TLS refused", err)
	}
	// The service calls the internet and nothing private by default.
	if got := c.Outbound.String(); got != "public internet and nothing private" {
		t.Fatalf("outbound default = %q", got)
	}
	c, err = LoadConfig(envOf(map[string]string{"LIBRARY_OUTBOUND_ALLOW": "koha.school.lan, 10.20.0.0/16", "LIBRARY_OUTBOUND_PUBLIC": "false"}))
	if got := c.Outbound.String(); err != nil || got != "only koha.school.lan,10.20.0.0/16" {
		t.Fatalf("outbound allow list = %q, %v", got, err)
	}
	// Demo data defaults to off on an external database.
	c, err = LoadConfig(envOf(map[string]string{"LIBRARY_MONGODB_URI": "mongodb://db.example.org/"}))
	if err != nil || c.DemoData {
		t.Fatalf("external database: demo=%v err=%v, want demo off", c.DemoData, err)
	}
}

func TestConfigErrorsNameTheVariable(t *testing.T) {
	tests := []struct{ name, value string }{
		{"LIBRARY_ADDR", "8080"},
		{"LIBRARY_MONGODB_URI", "postgres://x"},
		{"LIBRARY_ACCESS_TOKEN_TTL", "forever"},
		{"LIBRARY_ACCESS_TOKEN_TTL", "48h"},
		{"LIBRARY_COOKIE_SECURE", "maybe"},
		{"LIBRARY_DEMO_DATA", "yes please"},
		{"LIBRARY_RATE_ANONYMOUS", "lots"},
		{"LIBRARY_RATE_PREMIUM", "10-W"},
		{"LIBRARY_ALLOWED_ORIGINS", "https://app.example.org/path"},
		{"LIBRARY_TRUSTED_PROXIES", "10.0.0.0/33"},
		{"LIBRARY_REDIS_URL", "http://redis"},
		{"LIBRARY_ISSUER_URL", "ftp://x"},
		{"LIBRARY_LOG_LEVEL", "loud"},
		{"LIBRARY_BOOTSTRAP_ADMIN_EMAIL", "admin@example.org"}, // without a password
		{"LIBRARY_METRICS_ADDR", "9090"},
		{"LIBRARY_METRICS_ADDR", ":8080"}, // the public port
		{"LIBRARY_METRICS_TOKEN", "short"},
		{"LIBRARY_SECRET_KEY_PREVIOUS_FILE", "/old.key"}, // without a new key
		{"LIBRARY_SWEEP_INTERVAL", "1s"},
		{"LIBRARY_SIGNUP", "maybe"},
		{"LIBRARY_SMTP_TLS", "ssl"},
		{"LIBRARY_SMTP_PORT", "70000"},
		{"LIBRARY_SMTP_USERNAME", "library"}, // without a password
		{"LIBRARY_MAIL_FROM", "not an address"},
		// An issuer bound to no school or email domains could sign in
		// every account of every school: refused at start.
		{"LIBRARY_OIDC_ISSUERS", "https://idp.school.org=library-api"},
		{"LIBRARY_OIDC_ISSUERS", "https://idp.school.org=library-api;domains=school.org;school=school.org"},
		{"LIBRARY_OUTBOUND_ALLOW", "http://koha.school.lan:8080/"},
		{"LIBRARY_OUTBOUND_PUBLIC", "sometimes"},
		// Kiosks' passwords and students' numbers never cross the
		// network in plain text.
		{"LIBRARY_SIP2_ADDR", "0.0.0.0:6001"},
		{"LIBRARY_SIP2_ADDR", ":6001"},
		{"LIBRARY_SIP2_ADDR", "10.0.0.5:6001"},
		{"LIBRARY_SIP2_ADDR", "6001"},
		{"LIBRARY_SIP2_ADDR", "127.0.0.1:9090"},            // the metrics listener
		{"LIBRARY_SIP2_TLS_CERT", "/etc/library/sip2.pem"}, // without its key
	}
	for _, tt := range tests {
		t.Run(tt.name+"="+tt.value, func(t *testing.T) {
			_, err := LoadConfig(envOf(map[string]string{tt.name: tt.value}))
			if err == nil || !strings.Contains(err.Error(), tt.name) {
				t.Fatalf("err = %v, want an error naming %s", err, tt.name)
			}
		})
	}
	for _, env := range []map[string]string{
		{"LIBRARY_SIP2_ADDR": "127.0.0.1:6001"},
		{"LIBRARY_SIP2_ADDR": "[::1]:6001"},
		{"LIBRARY_SIP2_ADDR": "0.0.0.0:6001", "LIBRARY_SIP2_TLS_CERT": "/etc/library/sip2.pem", "LIBRARY_SIP2_TLS_KEY": "/etc/library/sip2.key"},
	} {
		if c, err := LoadConfig(envOf(env)); err != nil || c.SIP2Addr != env["LIBRARY_SIP2_ADDR"] {
			t.Errorf("%v: %q, %v; want the SIP2 listener taken", env, c.SIP2Addr, err)
		}
	}
	_, err := LoadConfig(envOf(map[string]string{
		"LIBRARY_BOOTSTRAP_ADMIN_EMAIL": "admin@example.org", "LIBRARY_BOOTSTRAP_ADMIN_PASSWORD": "short",
	}))
	if err == nil || !strings.Contains(err.Error(), "LIBRARY_BOOTSTRAP_ADMIN_PASSWORD") || strings.Contains(err.Error(), "short") {
		t.Fatalf("err = %v, want the password variable named without its value", err)
	}
}

func TestConfigParsesLists(t *testing.T) {
	c, err := LoadConfig(envOf(map[string]string{
		"LIBRARY_ALLOWED_ORIGINS": "https://a.example.org, https://b.example.org/",
		"LIBRARY_TRUSTED_PROXIES": "10.0.0.0/8, 192.0.2.7",
		"LIBRARY_ISSUER_URL":      "https://library.example.org/",
		"LIBRARY_OIDC_ISSUERS":    "https://idp.school.org=library-api;school=maplegrove.example.org, https://idp.city.org=lib;domains=city.org|pupils.city.org;typ=at+jwt",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.AllowedOrigins, " ") != "https://a.example.org https://b.example.org" {
		t.Fatalf("origins = %v", c.AllowedOrigins)
	}
	if len(c.TrustedProxies) != 2 || c.TrustedProxies[1].String() != "192.0.2.7/32" {
		t.Fatalf("proxies = %v", c.TrustedProxies)
	}
	if is := c.OIDCIssuers; len(is) != 2 || is[0].School != "maplegrove.example.org" || len(is[1].EmailDomains) != 2 || is[1].TokenType != "at+jwt" {
		t.Fatalf("OIDC issuers = %+v", is)
	}
	if c.IssuerURL != "https://library.example.org" {
		t.Fatalf("issuer = %q", c.IssuerURL)
	}
}

func TestStartupLogMasksSecrets(t *testing.T) {
	c, err := LoadConfig(envOf(map[string]string{
		"LIBRARY_MONGODB_URI":              "mongodb://app:mongo-secret-pw@db1.example.org,db2.example.org/?replicaSet=rs0&authMechanismProperties=AWS_SESSION_TOKEN:aws-secret",
		"LIBRARY_REDIS_URL":                "redis://:redis-secret-pw@cache.example.org:6379/0",
		"LIBRARY_BOOTSTRAP_ADMIN_EMAIL":    "admin@example.org",
		"LIBRARY_BOOTSTRAP_ADMIN_PASSWORD": "vault-secret-pw",
		"LIBRARY_SECRET_KEY":               "c2VjcmV0LWtleS1zZWNyZXQta2V5LXNlY3JldC1rZXk=",
		"LIBRARY_METRICS_TOKEN":            "metrics-secret-token",
		"LIBRARY_SMTP_HOST":                "smtp.example.org",
		"LIBRARY_SMTP_USERNAME":            "library",
		"LIBRARY_SMTP_PASSWORD":            "smtp-secret-pw",
	}))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("starting", "config", c)
	for _, secret := range []string{"mongo-secret-pw", "redis-secret-pw", "vault-secret-pw", "aws-secret", "c2VjcmV0LWtleS", "metrics-secret-token", "smtp-secret-pw"} {
		if strings.Contains(buf.String(), secret) {
			t.Fatalf("start-up log contains %q: %s", secret, buf.String())
		}
	}
	if !strings.Contains(buf.String(), "admin@example.org") || !strings.Contains(buf.String(), "smtp.example.org") {
		t.Fatalf("start-up log lacks the non-secret settings: %s", buf.String())
	}
}

// The README's configuration table must list every setting the service reads.
func TestReadmeListsEverySetting(t *testing.T) {
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	if err := WriteSettingsTable(&table); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), table.String()) {
		t.Errorf("README.md's configuration table is out of date; regenerate it with `go run ./cmd/libraryd settings`")
	}
}

// Settings documents exactly the variables LoadConfig reads.
func TestSettingsListMatchesLoadConfig(t *testing.T) {
	read := map[string]bool{}
	_, _ = LoadConfig(func(k string) string { read[k] = true; return "" })
	documented := map[string]bool{}
	for _, s := range Settings {
		documented[s.Name] = true
		if !read[s.Name] {
			t.Errorf("%s is documented but never read", s.Name)
		}
	}
	for _, r := range RetiredSettings {
		documented[r.Name] = true
	}
	for k := range read {
		if !documented[k] {
			t.Errorf("%s is read but not in Settings", k)
		}
	}
}

// A variable of an earlier version stops the start with what to do instead,
// rather than being ignored.
func TestRetiredSettingsAreRefused(t *testing.T) {
	_, err := LoadConfig(envOf(map[string]string{"LIBRARY_EMBEDDED_MONGO_ADDR": "127.0.0.1:27017"}))
	if err == nil || !strings.Contains(err.Error(), "LIBRARY_EMBEDDED_MONGO_ADDR: is no longer supported") || !strings.Contains(err.Error(), "library.db") {
		t.Fatalf("LoadConfig with LIBRARY_EMBEDDED_MONGO_ADDR: %v, want a refusal that says what replaced it", err)
	}
}

// A data directory of the FerretDB-based version is refused with what to
// do; one with library.db (already moved, old files left behind) is not.
func TestDataDirOfTheFerretDBVersionIsRefused(t *testing.T) {
	dir := t.TempDir()
	if err := checkDataDir(dir); err != nil {
		t.Fatalf("an empty data dir: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "library.sqlite"), []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := checkDataDir(dir)
	if err == nil || !strings.Contains(err.Error(), "library.sqlite") || !strings.Contains(err.Error(), "libraryd migrate --from") {
		t.Fatalf("a data dir with library.sqlite: %v, want a refusal naming the file and the way to migrate", err)
	}
	if err := os.WriteFile(filepath.Join(dir, EmbeddedFile), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := checkDataDir(dir); err != nil {
		t.Fatalf("a data dir with library.db beside the old files: %v, want no refusal", err)
	}
}

// A default is written once, in Settings: changing it there changes what
// LoadConfig uses, and the README table (generated from Settings) follows.
func TestLoadConfigTakesDefaultsFromSettings(t *testing.T) {
	set := func(name, def string) {
		for i := range Settings {
			if Settings[i].Name == name {
				old := Settings[i].Default
				Settings[i].Default = def
				t.Cleanup(func() { Settings[i].Default = old })
				return
			}
		}
		t.Fatalf("%s is not in Settings", name)
	}
	set("LIBRARY_ACCESS_TOKEN_TTL", "20m")
	set("LIBRARY_LOGIN_FAILURES_PER_ACCOUNT", "7")
	set("LIBRARY_RATE_ANONYMOUS", "30-M")
	set("LIBRARY_COOKIE_SECURE", "false")
	set("LIBRARY_MONGODB_DATABASE", "school")
	c, err := LoadConfig(envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.AccessTokenTTL != 20*time.Minute || c.LoginFailuresPerAccount != 7 || c.RateAnonymous.Limit != 30 ||
		c.RateAnonymous.Period != time.Minute || c.CookieSecure || c.Database != "school" {
		t.Fatalf("LoadConfig did not take its defaults from Settings: ttl %v, failures %d, rate %+v, secure %v, database %q",
			c.AccessTokenTTL, c.LoginFailuresPerAccount, c.RateAnonymous, c.CookieSecure, c.Database)
	}
}

// A setting's default is either a value (Default) or a description of how
// it is worked out (DefaultNote), never both: the README shows one of them.
func TestSettingDefaultIsValueOrNote(t *testing.T) {
	for _, s := range Settings {
		if s.Default != "" && s.DefaultNote != "" {
			t.Errorf("%s has both Default %q and DefaultNote %q", s.Name, s.Default, s.DefaultNote)
		}
	}
}
