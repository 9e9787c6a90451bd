// Package app wires the service: it reads the configuration from the
// environment, builds the adapters and use cases, and runs the HTTP server.
// It is a separate package from main so end-to-end tests can start the
// whole service in-process.
//
// As the wiring it may import every package of the module, the adapters
// included: the layer rules of test/architecture_test.go set no limit on cmd.
package app

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/mail"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ulule/limiter/v3"

	"github.com/readinglibrary/service/adapters/coversource"
	"github.com/readinglibrary/service/adapters/mailer"
	"github.com/readinglibrary/service/adapters/oidcverify"
	"github.com/readinglibrary/service/adapters/outbound"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/identity"
	"github.com/readinglibrary/service/core/user"
)

// Config is every setting of the service, read from LIBRARY_* variables.
type Config struct {
	Addr                   string        // LIBRARY_ADDR
	MongoURI               string        // LIBRARY_MONGODB_URI; empty: the embedded SQLite store
	Database               string        // LIBRARY_MONGODB_DATABASE
	DataDir                string        // LIBRARY_DATA_DIR
	UploadDir              string        // LIBRARY_UPLOAD_DIR
	MaxImports             int           // LIBRARY_MAX_IMPORTS
	BootstrapAdminEmail    string        // LIBRARY_BOOTSTRAP_ADMIN_EMAIL
	BootstrapAdminPassword string        // LIBRARY_BOOTSTRAP_ADMIN_PASSWORD
	DemoData               bool          // LIBRARY_DEMO_DATA
	IssuerURL              string        // LIBRARY_ISSUER_URL
	TokenAudience          string        // LIBRARY_TOKEN_AUDIENCE
	AccessTokenTTL         time.Duration // LIBRARY_ACCESS_TOKEN_TTL
	RefreshTokenTTL        time.Duration // LIBRARY_REFRESH_TOKEN_TTL
	RefreshReuseGrace      time.Duration // LIBRARY_REFRESH_REUSE_GRACE
	SigningKeyFile         string        // LIBRARY_SIGNING_KEY_FILE
	SecretKeyFile          string        // LIBRARY_SECRET_KEY_FILE
	SecretKey              string        // LIBRARY_SECRET_KEY (base64)
	SecretKeyPreviousFile  string        // LIBRARY_SECRET_KEY_PREVIOUS_FILE
	MetricsAddr            string        // LIBRARY_METRICS_ADDR; empty: no metrics listener
	MetricsToken           string        // LIBRARY_METRICS_TOKEN; set: /metrics on the public port too
	SweepInterval          time.Duration // LIBRARY_SWEEP_INTERVAL
	AuditRetentionDays     int           // LIBRARY_AUDIT_RETENTION_DAYS
	CookieSecure           bool          // LIBRARY_COOKIE_SECURE
	AllowedOrigins         []string      // LIBRARY_ALLOWED_ORIGINS
	TrustedProxies         []netip.Prefix
	OIDCIssuers            []oidcverify.Issuer // LIBRARY_OIDC_ISSUERS
	RedisURL               string              // LIBRARY_REDIS_URL
	Outbound               outbound.Policy     // LIBRARY_OUTBOUND_ALLOW and LIBRARY_OUTBOUND_PUBLIC
	CoverSource            string              // LIBRARY_COVER_SOURCE; "" is off
	RateAnonymous          limiter.Rate
	RateSignIn             limiter.Rate
	MailPerRecipient       limiter.Rate
	RateAuthenticated      limiter.Rate
	RatePremium            limiter.Rate
	// Sign-in failures allowed per 15 minutes (LIBRARY_LOGIN_FAILURES_*).
	LoginFailuresPerAddress        int64
	LoginFailuresPerAccount        int64
	LoginFailuresPerAccountAddress int64
	Signup                         identity.SignupMode // LIBRARY_SIGNUP
	SMTP                           SMTPConfig
	PoliciesDir                    string // LIBRARY_POLICIES_DIR; empty uses the policies built into the binary
	LogLevel                       slog.Level
	ShutdownTimeout                time.Duration
	ShutdownDrain                  time.Duration
	// HTTP server limits against slow or idle clients.
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	WriteTimeout      time.Duration
	IdleTimeout       time.Duration
	// RequestTimeout is the deadline of one request's work (LIBRARY_REQUEST_TIMEOUT).
	RequestTimeout time.Duration

	// SIP2Addr is the self-check kiosks' listener (LIBRARY_SIP2_ADDR);
	// empty: none. SIP2TLSCert and SIP2TLSKey are its certificate and key
	// files; without them it listens in plain text, which only a loopback
	// address may.
	SIP2Addr, SIP2TLSCert, SIP2TLSKey string
}

// SMTPConfig is the mail server the service sends through; without a host,
// mail goes to the development outbox (LIBRARY_DATA_DIR/outbox).
type SMTPConfig struct {
	Host     string         // LIBRARY_SMTP_HOST
	Port     int            // LIBRARY_SMTP_PORT; 0: the TLS mode's usual port
	TLS      mailer.TLSMode // LIBRARY_SMTP_TLS
	Username string         // LIBRARY_SMTP_USERNAME
	Password string         // LIBRARY_SMTP_PASSWORD
	From     string         // LIBRARY_MAIL_FROM
}

// Embedded reports whether the service runs its own database.
func (c Config) Embedded() bool { return c.MongoURI == "" }

// Setting documents one environment variable; the README's table and the
// deployment checks are generated from this list, and LoadConfig takes its
// defaults from it, so each default is written only here.
type Setting struct {
	Name string
	// Default is the value LoadConfig uses when the variable is unset.
	Default string
	// DefaultNote describes a default that LoadConfig works out from other
	// settings (Default is then empty); the README shows it instead.
	DefaultNote string
	Secret      bool
	Help        string
}

// settingDefault returns the Default of the named setting. An unknown name
// is a programming error, which every test that loads a configuration
// reaches, so it panics.
func settingDefault(name string) string {
	for _, s := range Settings {
		if s.Name == name {
			return s.Default
		}
	}
	panic("config: " + name + " is not in Settings")
}

// Settings lists every variable the service reads.
var Settings = []Setting{
	{Name: "LIBRARY_ADDR", Default: ":8080", Help: "Address the HTTP server listens on."},
	{Name: "LIBRARY_MONGODB_URI", Secret: true, Help: "MongoDB connection string (replica set or Atlas), for many schools or several replicas. Empty: the embedded store, one SQLite file in LIBRARY_DATA_DIR."},
	{Name: "LIBRARY_MONGODB_DATABASE", Default: "library", Help: "Database name on the MongoDB server."},
	{Name: "LIBRARY_DATA_DIR", Default: "./data", Help: "Directory of the embedded store's file, library.db."},
	{Name: "LIBRARY_UPLOAD_DIR", DefaultNote: "LIBRARY_DATA_DIR/uploads with the embedded store, else libraryd-uploads in the system's temporary directory", Help: "Directory where uploaded holdings files are kept while they are imported (mode 0700, each file 0600, deleted when its request or import job ends). It belongs to one process: files a previous process left there are deleted at start. Needs room for LIBRARY_MAX_IMPORTS files of up to 64 MiB and those waiting to be read."},
	{Name: "LIBRARY_MAX_IMPORTS", Default: "2", Help: "Uploaded files read at once (1 to 64): holdings imports (dry runs, commits and their jobs), roster syncs (and their jobs), student files and stocktake scanner files; one more is answered 503 imports_busy with Retry-After. Each may hold a file's records in memory."},
	{Name: "LIBRARY_BOOTSTRAP_ADMIN_EMAIL", Help: "Create this admin account at start if no account has the email."},
	{Name: "LIBRARY_BOOTSTRAP_ADMIN_PASSWORD", Secret: true, Help: "Password of the bootstrap admin (at least 10 characters)."},
	{Name: "LIBRARY_DEMO_DATA", DefaultNote: "true with the embedded store, else false", Help: "Seed a demo school and demo accounts into an empty store and print their credentials."},
	{Name: "LIBRARY_ISSUER_URL", DefaultNote: "http://localhost:<port>", Help: "Public base URL of the service; the iss of its tokens and the base of its discovery document."},
	{Name: "LIBRARY_TOKEN_AUDIENCE", Default: "library-api", Help: "The aud of access tokens."},
	{Name: "LIBRARY_ACCESS_TOKEN_TTL", Default: "15m", Help: "Lifetime of access tokens (1m to 24h)."},
	{Name: "LIBRARY_REFRESH_TOKEN_TTL", Default: "720h", Help: "Lifetime of refresh tokens (1h to 8760h)."},
	{Name: "LIBRARY_REFRESH_REUSE_GRACE", Default: "10s", Help: "A rotated refresh token used again within this time (a client racing itself) is refused without ending the session; later reuse revokes the whole session family. 0 revokes on any reuse."},
	{Name: "LIBRARY_SIGNING_KEY_FILE", Help: "PEM file of the RSA key that signs tokens. Empty: a key is generated once and kept in the database, encrypted with the secret key."},
	{Name: "LIBRARY_SECRET_KEY_FILE", DefaultNote: "LIBRARY_DATA_DIR/secret.key with the embedded store", Help: "File holding the secret key (32 random bytes, base64: `openssl rand -base64 32`) that encrypts the token-signing key in the database. Required with MongoDB unless LIBRARY_SIGNING_KEY_FILE is set; the embedded store creates the default file (mode 0600) on first start. Keep it out of the database's backups."},
	{Name: "LIBRARY_SECRET_KEY", Secret: true, Help: "The secret key itself (base64), instead of LIBRARY_SECRET_KEY_FILE."},
	{Name: "LIBRARY_SECRET_KEY_PREVIOUS_FILE", Help: "While rotating the secret key: the file of the old key. Keys encrypted with it are read and encrypted again with the new key at start."},
	{Name: "LIBRARY_METRICS_ADDR", Default: "127.0.0.1:9090", Help: "Address of the separate listener that serves GET /metrics (no authentication: keep it off the public network). off: no metrics listener."},
	{Name: "LIBRARY_SIP2_ADDR", Help: "Address (host:port) of the SIP2 listener for self-check kiosks. Empty (the default): no SIP2 listener. Kiosks sign in with the login and password a librarian makes for them (POST /api/library/kiosks)."},
	{Name: "LIBRARY_SIP2_TLS_CERT", Help: "PEM certificate (chain) of the SIP2 listener's TLS. With LIBRARY_SIP2_TLS_KEY; without both the listener speaks plain text, which is allowed only on a loopback address (a TLS tunnel such as stunnel on the same machine)."},
	{Name: "LIBRARY_SIP2_TLS_KEY", Help: "PEM private key of LIBRARY_SIP2_TLS_CERT."},
	{Name: "LIBRARY_METRICS_TOKEN", Secret: true, Help: "When set (at least 16 characters), GET /metrics is served on the public port too, to callers that send it as a bearer token. Empty: the public port answers 404 for /metrics."},
	{Name: "LIBRARY_SWEEP_INTERVAL", Default: "1h", Help: "How often expired refresh tokens and invitations are deleted (1m to 24h); one replica sweeps each interval."},
	{Name: "LIBRARY_AUDIT_RETENTION_DAYS", Default: "1095", Help: "How many days the audit log keeps an entry of what staff and admins changed (30 to 3650; the default is three school years). Each sweep removes the entries older than that, and nothing else ever removes one."},
	{Name: "LIBRARY_COOKIE_SECURE", Default: "true", Help: "Secure attribute on cookies. Switch off only for plain-http development."},
	{Name: "LIBRARY_ALLOWED_ORIGINS", DefaultNote: "the issuer URL's origin", Help: "Comma-separated browser origins allowed for CORS and cookie-authenticated changes."},
	{Name: "LIBRARY_TRUSTED_PROXIES", Help: "Comma-separated CIDRs of proxies whose X-Forwarded-For is believed."},
	{Name: "LIBRARY_OIDC_ISSUERS", Help: "Trusted school identity providers, comma-separated entries issuer-url=audience;school=SCHOOL (a school domain or id) or issuer-url=audience;domains=DOMAINS (email domains joined by vertical bars), optionally followed by ;typ=TYPE (default: ID tokens). https; http only on loopback. An entry bound to no school and no domains is refused at start. Tokens (aud and iat required, at most 24 h long) sign in existing accounts of that school or those email domains, never an admin, and never grant roles; the first sign-in, by verified email, links the token subject to the account."},
	{Name: "LIBRARY_OUTBOUND_ALLOW", Help: "Servers on the school's own network the service may call, such as a Koha a school sets as its catalogue server: comma-separated host names (called at whatever address they resolve to; list only names whose DNS you control) and addresses or CIDRs (10.20.0.5, 10.20.0.0/16, fd12::/48). Nothing else that is not on the public internet is ever called: not loopback, private, carrier-grade NAT, link-local (cloud metadata), unique-local, multicast or reserved addresses, in any IPv4, IPv6 or IPv4-mapped form, whatever a URL or a DNS answer says, and not through a proxy."},
	{Name: "LIBRARY_OUTBOUND_PUBLIC", Default: "true", Help: "Whether the service may call servers on the public internet (catalogue servers; a new school's is the Library of Congress's). false: only what LIBRARY_OUTBOUND_ALLOW names and the hosts of LIBRARY_OIDC_ISSUERS, and no other name is even looked up (a closed network)."},
	{Name: "LIBRARY_COVER_SOURCE", Default: coversource.DefaultTemplate, Help: "Where the service fetches a title's cover by ISBN the first time its catalogue shows it: a URL with {isbn} where the ISBN goes (an answer of 404 means none), called through the same guard as catalogue servers (LIBRARY_OUTBOUND_ALLOW, LIBRARY_OUTBOUND_PUBLIC). The service keeps and serves each cover itself, re-encoded without metadata, so browsers never call it. off: only covers librarians upload."},
	{Name: "LIBRARY_REDIS_URL", Secret: true, Help: "Redis URL for shared rate limits and sign-in throttling across replicas. Empty: in-process store."},
	{Name: "LIBRARY_RATE_ANONYMOUS", Default: "100-H", Help: "Rate limit per client address without a token (limiter format: <n>-<S|M|H|D>)."},
	{Name: "LIBRARY_RATE_AUTHENTICATED", Default: "1000-H", Help: "Rate limit per standard-tier account."},
	{Name: "LIBRARY_RATE_PREMIUM", Default: "10000-H", Help: "Rate limit per premium-tier account."},
	{Name: "LIBRARY_RATE_SIGNIN", Default: "5000-H", Help: "Rate limit per client address for sign-ins and token refreshes (POST /api/auth/login and /api/auth/refresh without an access token), apart from LIBRARY_RATE_ANONYMOUS, so a school behind one address can sign every student in. Wrong passwords are bounded by LIBRARY_LOGIN_FAILURES_*."},
	{Name: "LIBRARY_LOGIN_FAILURES_PER_ADDRESS", Default: "50", Help: "Failed sign-ins allowed from one client address in 15 minutes, whatever the email (1 to 100000). Correct sign-ins do not count, so a school behind one address signs in freely (LIBRARY_RATE_SIGNIN still bounds its requests)."},
	{Name: "LIBRARY_LOGIN_FAILURES_PER_ACCOUNT", Default: "10", Help: "Failed sign-ins allowed for one email in 15 minutes from all clients without a device token of the account (1 to 1000). Past it the account is locked for them until the window ends, a password reset or a librarian's unlock; browsers and apps that signed in to it before (device token) still sign in."},
	{Name: "LIBRARY_LOGIN_FAILURES_PER_ACCOUNT_ADDRESS", Default: "5", Help: "Failed sign-ins allowed for one email from one client address in 15 minutes (1 to 1000)."},
	{Name: "LIBRARY_MAIL_PER_RECIPIENT", Default: "5-H", Help: "Mails one address receives at most (password resets, sign-up confirmations and warnings), whoever asks and from how many client addresses; shared across replicas with LIBRARY_REDIS_URL. The mails past it are not sent (the request is answered as usual), logged with a digest of the address and counted in library_mail_capped_total; while the counter store is down no such mail is sent."},
	{Name: "LIBRARY_SIGNUP", Default: "verify", Help: "How POST /api/auth/signup creates reader accounts: verify (a link is mailed; the account exists once it is followed), open (at once, without proving the address: anyone can take anyone's email; demos and tests only) or closed (403 signup_disabled)."},
	{Name: "LIBRARY_SMTP_HOST", Help: "SMTP server for the service's mail (password resets, sign-up links). Empty: each message is written to LIBRARY_DATA_DIR/outbox/ and logged (development)."},
	{Name: "LIBRARY_SMTP_PORT", DefaultNote: "587 for starttls, 465 for tls, 25 for none", Help: "Port of the SMTP server."},
	{Name: "LIBRARY_SMTP_TLS", Default: "starttls", Help: "starttls (upgrade, refused if the server does not offer it), tls (implicit TLS) or none (clear text; only for a relay on the same host, and never with a username)."},
	{Name: "LIBRARY_SMTP_USERNAME", Help: "SMTP user name; empty: no authentication."},
	{Name: "LIBRARY_SMTP_PASSWORD", Secret: true, Help: "SMTP password."},
	{Name: "LIBRARY_MAIL_FROM", DefaultNote: "noreply@<issuer host>", Help: "Sender of the service's mail, e.g. Reading library <noreply@library.example.org>."},
	{Name: "LIBRARY_POLICIES_DIR", Help: "Directory of Ladon policy JSON files. Empty: the policies built into the binary (policies/ of the repository)."},
	{Name: "LIBRARY_LOG_LEVEL", Default: "info", Help: "debug, info, warn or error."},
	{Name: "LIBRARY_SHUTDOWN_TIMEOUT", Default: "20s", Help: "How long SIGTERM waits for in-flight requests."},
	{Name: "LIBRARY_SHUTDOWN_DRAIN", Default: "0s", Help: "After SIGTERM, how long /readyz answers 503 while requests are still served, before the listener closes (give load balancers time to notice, e.g. 5s behind Kubernetes)."},
	{Name: "LIBRARY_READ_HEADER_TIMEOUT", Default: "5s", Help: "Time a client has to send its request headers (cuts off slowloris connections)."},
	{Name: "LIBRARY_READ_TIMEOUT", Default: "30s", Help: "Time a client has to send a whole request, body included."},
	{Name: "LIBRARY_WRITE_TIMEOUT", Default: "60s", Help: "Time to write a response before the connection is closed."},
	{Name: "LIBRARY_IDLE_TIMEOUT", Default: "120s", Help: "How long an idle keep-alive connection is kept open."},
	{Name: "LIBRARY_REQUEST_TIMEOUT", Default: "15s", Help: "Deadline of one request's work once it has been read (1s to 5m); past it the request is answered 503 request_timeout."},
}

// RetiredSettings are variables of earlier versions that this one refuses
// rather than ignores, each with what to do instead.
var RetiredSettings = []Setting{
	// It exposed the FerretDB-based embedded database, without a password,
	// on a TCP port; the embedded store is a file now, not a server.
	{Name: "LIBRARY_EMBEDDED_MONGO_ADDR", Help: "the embedded store is the file library.db, with no network port; use `libraryd backup` for a copy or `libraryd migrate --to` to move it to MongoDB"},
	{Name: "LIBRARY_SIGNUP_ENABLED", Help: "use LIBRARY_SIGNUP=verify (the default: sign-up confirms the email), open (the old true) or closed (the old false)"},
}

// LoadConfig reads and validates the configuration. Every problem is
// reported at once, each naming its variable.
func LoadConfig(getenv func(string) string) (Config, error) {
	var problems []string
	bad := func(name, format string, args ...any) {
		problems = append(problems, name+": "+fmt.Sprintf(format, args...))
	}
	str := func(name string) string {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			return v
		}
		return settingDefault(name)
	}
	// computed is the default of a setting whose default depends on others
	// (it has a DefaultNote and no Default).
	boolean := func(name string, computed bool) bool {
		v := str(name)
		if v == "" {
			return computed
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			bad(name, "must be true or false, got %q", v)
		}
		return b
	}
	duration := func(name string, min, max time.Duration) time.Duration {
		v := str(name)
		d, err := time.ParseDuration(v)
		if err != nil {
			bad(name, "must be a duration such as 15m, got %q", v)
			return 0
		}
		if d < min || d > max {
			bad(name, "must be between %s and %s, got %s", min, max, d)
		}
		return d
	}
	count := func(name string, min, max int64) int64 {
		v := str(name)
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < min || n > max {
			bad(name, "must be a whole number from %d to %d, got %q", min, max, v)
		}
		return n
	}
	rate := func(name string) limiter.Rate {
		v := str(name)
		r, err := limiter.NewRateFromFormatted(v)
		if err != nil || r.Limit <= 0 {
			bad(name, "must be a rate such as %s (<count>-<S|M|H|D>), got %q", settingDefault(name), v)
		}
		return r
	}

	c := Config{
		Addr:                           str("LIBRARY_ADDR"),
		MongoURI:                       str("LIBRARY_MONGODB_URI"),
		Database:                       str("LIBRARY_MONGODB_DATABASE"),
		DataDir:                        str("LIBRARY_DATA_DIR"),
		UploadDir:                      str("LIBRARY_UPLOAD_DIR"),
		MaxImports:                     int(count("LIBRARY_MAX_IMPORTS", 1, 64)),
		BootstrapAdminEmail:            user.NormalizeEmail(getenv("LIBRARY_BOOTSTRAP_ADMIN_EMAIL")),
		BootstrapAdminPassword:         getenv("LIBRARY_BOOTSTRAP_ADMIN_PASSWORD"),
		TokenAudience:                  str("LIBRARY_TOKEN_AUDIENCE"),
		AccessTokenTTL:                 duration("LIBRARY_ACCESS_TOKEN_TTL", time.Minute, 24*time.Hour),
		RefreshTokenTTL:                duration("LIBRARY_REFRESH_TOKEN_TTL", time.Hour, 8760*time.Hour),
		RefreshReuseGrace:              duration("LIBRARY_REFRESH_REUSE_GRACE", 0, time.Minute),
		SigningKeyFile:                 str("LIBRARY_SIGNING_KEY_FILE"),
		SecretKeyFile:                  str("LIBRARY_SECRET_KEY_FILE"),
		SecretKey:                      strings.TrimSpace(getenv("LIBRARY_SECRET_KEY")),
		SecretKeyPreviousFile:          str("LIBRARY_SECRET_KEY_PREVIOUS_FILE"),
		MetricsAddr:                    str("LIBRARY_METRICS_ADDR"),
		SIP2Addr:                       str("LIBRARY_SIP2_ADDR"),
		SIP2TLSCert:                    str("LIBRARY_SIP2_TLS_CERT"),
		SIP2TLSKey:                     str("LIBRARY_SIP2_TLS_KEY"),
		MetricsToken:                   strings.TrimSpace(getenv("LIBRARY_METRICS_TOKEN")),
		SweepInterval:                  duration("LIBRARY_SWEEP_INTERVAL", time.Minute, 24*time.Hour),
		AuditRetentionDays:             int(count("LIBRARY_AUDIT_RETENTION_DAYS", library.MinAuditDays, library.MaxAuditDays)),
		CookieSecure:                   boolean("LIBRARY_COOKIE_SECURE", false),
		RedisURL:                       str("LIBRARY_REDIS_URL"),
		RateAnonymous:                  rate("LIBRARY_RATE_ANONYMOUS"),
		RateAuthenticated:              rate("LIBRARY_RATE_AUTHENTICATED"),
		RatePremium:                    rate("LIBRARY_RATE_PREMIUM"),
		RateSignIn:                     rate("LIBRARY_RATE_SIGNIN"),
		MailPerRecipient:               rate("LIBRARY_MAIL_PER_RECIPIENT"),
		LoginFailuresPerAddress:        count("LIBRARY_LOGIN_FAILURES_PER_ADDRESS", 1, 100000),
		LoginFailuresPerAccount:        count("LIBRARY_LOGIN_FAILURES_PER_ACCOUNT", 1, 1000),
		LoginFailuresPerAccountAddress: count("LIBRARY_LOGIN_FAILURES_PER_ACCOUNT_ADDRESS", 1, 1000),
		Signup:                         identity.SignupMode(strings.ToLower(str("LIBRARY_SIGNUP"))),
		PoliciesDir:                    str("LIBRARY_POLICIES_DIR"),
		ShutdownTimeout:                duration("LIBRARY_SHUTDOWN_TIMEOUT", 0, 10*time.Minute),
		ShutdownDrain:                  duration("LIBRARY_SHUTDOWN_DRAIN", 0, 5*time.Minute),
		ReadHeaderTimeout:              duration("LIBRARY_READ_HEADER_TIMEOUT", 100*time.Millisecond, time.Minute),
		ReadTimeout:                    duration("LIBRARY_READ_TIMEOUT", 100*time.Millisecond, 10*time.Minute),
		WriteTimeout:                   duration("LIBRARY_WRITE_TIMEOUT", 100*time.Millisecond, 10*time.Minute),
		IdleTimeout:                    duration("LIBRARY_IDLE_TIMEOUT", time.Second, time.Hour),
		RequestTimeout:                 duration("LIBRARY_REQUEST_TIMEOUT", time.Second, 5*time.Minute),
	}
	c.DemoData = boolean("LIBRARY_DEMO_DATA", c.Embedded())
	if c.UploadDir == "" {
		c.UploadDir = filepath.Join(os.TempDir(), "libraryd-uploads")
		if c.Embedded() {
			c.UploadDir = filepath.Join(c.DataDir, "uploads")
		}
	}
	if v := str("LIBRARY_COVER_SOURCE"); v != "off" {
		c.CoverSource = v
		if err := coversource.CheckTemplate(v); err != nil {
			bad("LIBRARY_COVER_SOURCE", "%v", err)
		}
	}
	if p, err := outbound.NewPolicy(str("LIBRARY_OUTBOUND_ALLOW"), boolean("LIBRARY_OUTBOUND_PUBLIC", true)); err != nil {
		bad("LIBRARY_OUTBOUND_ALLOW", "%v", err)
	} else {
		c.Outbound = p
	}

	host, port, err := net.SplitHostPort(c.Addr)
	if err != nil {
		bad("LIBRARY_ADDR", "must be host:port or :port, got %q", c.Addr)
	} else if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		bad("LIBRARY_ADDR", "has an invalid port %q", port)
	}
	if strings.EqualFold(c.MetricsAddr, "off") {
		c.MetricsAddr = ""
	} else if _, p, err := net.SplitHostPort(c.MetricsAddr); err != nil {
		bad("LIBRARY_METRICS_ADDR", "must be host:port or off, got %q", c.MetricsAddr)
	} else if n, err := strconv.Atoi(p); err != nil || n < 0 || n > 65535 {
		bad("LIBRARY_METRICS_ADDR", "has an invalid port %q", p)
	} else if c.MetricsAddr == c.Addr {
		bad("LIBRARY_METRICS_ADDR", "must differ from LIBRARY_ADDR: metrics are never served on the public port without LIBRARY_METRICS_TOKEN")
	}
	c.checkSIP2(bad)
	if c.MetricsToken != "" && len(c.MetricsToken) < 16 {
		bad("LIBRARY_METRICS_TOKEN", "must be at least 16 characters")
	}
	if c.SecretKeyFile != "" && c.SecretKey != "" {
		bad("LIBRARY_SECRET_KEY", "and LIBRARY_SECRET_KEY_FILE must not both be set")
	}
	if c.SecretKeyPreviousFile != "" && c.SecretKeyFile == "" && c.SecretKey == "" {
		bad("LIBRARY_SECRET_KEY_PREVIOUS_FILE", "needs the new key in LIBRARY_SECRET_KEY_FILE or LIBRARY_SECRET_KEY")
	}
	if c.MongoURI != "" {
		// Only the scheme is checked here: Unix-socket URIs carry a
		// percent-encoded host that net/url refuses; the driver parses the rest.
		if !strings.HasPrefix(c.MongoURI, "mongodb://") && !strings.HasPrefix(c.MongoURI, "mongodb+srv://") {
			bad("LIBRARY_MONGODB_URI", "must start with mongodb:// or mongodb+srv://")
		}
	}
	for _, r := range RetiredSettings {
		if getenv(r.Name) != "" {
			bad(r.Name, "is no longer supported: %s", r.Help)
		}
	}
	if (c.BootstrapAdminEmail == "") != (c.BootstrapAdminPassword == "") {
		bad("LIBRARY_BOOTSTRAP_ADMIN_EMAIL", "and LIBRARY_BOOTSTRAP_ADMIN_PASSWORD must be set together")
	}
	if c.BootstrapAdminEmail != "" {
		if msg := user.ValidateEmail(c.BootstrapAdminEmail); msg != "" {
			bad("LIBRARY_BOOTSTRAP_ADMIN_EMAIL", "%s", msg)
		}
		if msg := user.ValidateNewPassword(c.BootstrapAdminPassword, c.BootstrapAdminEmail, BootstrapAdminName); msg != "" {
			bad("LIBRARY_BOOTSTRAP_ADMIN_PASSWORD", "%s", msg)
		}
	}

	c.IssuerURL = strings.TrimRight(str("LIBRARY_ISSUER_URL"), "/")
	if c.IssuerURL == "" {
		if host == "" || host == "0.0.0.0" || host == "::" {
			host = "localhost"
		}
		c.IssuerURL = "http://" + net.JoinHostPort(host, port)
	} else if u, err := url.Parse(c.IssuerURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		bad("LIBRARY_ISSUER_URL", "must be an http(s) URL without query, got %q", c.IssuerURL)
	}

	if v := str("LIBRARY_ALLOWED_ORIGINS"); v != "" {
		for _, o := range strings.Split(v, ",") {
			o = strings.TrimRight(strings.TrimSpace(o), "/")
			if o == "" {
				continue
			}
			u, err := url.Parse(o)
			if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || (u.Path != "" && u.Path != "/") {
				bad("LIBRARY_ALLOWED_ORIGINS", "%q is not an origin such as https://app.example.org", o)
				continue
			}
			c.AllowedOrigins = append(c.AllowedOrigins, u.Scheme+"://"+u.Host)
		}
	} else if u, err := url.Parse(c.IssuerURL); err == nil {
		c.AllowedOrigins = []string{u.Scheme + "://" + u.Host}
	}

	if v := str("LIBRARY_TRUSTED_PROXIES"); v != "" {
		for _, s := range strings.Split(v, ",") {
			s = strings.TrimSpace(s)
			if s == "" {
				continue
			}
			p, err := netip.ParsePrefix(s)
			if err != nil {
				a, aerr := netip.ParseAddr(s)
				if aerr != nil {
					bad("LIBRARY_TRUSTED_PROXIES", "%q is not a CIDR such as 10.0.0.0/8", s)
					continue
				}
				p = netip.PrefixFrom(a, a.BitLen())
			}
			c.TrustedProxies = append(c.TrustedProxies, p.Masked())
		}
	}
	if v := str("LIBRARY_OIDC_ISSUERS"); v != "" {
		issuers, err := oidcverify.ParseIssuers(v)
		if err != nil {
			bad("LIBRARY_OIDC_ISSUERS", "%v", err)
		}
		for _, is := range issuers {
			if is.URL == c.IssuerURL {
				bad("LIBRARY_OIDC_ISSUERS", "must not list this service's own issuer %q", is.URL)
			}
		}
		c.OIDCIssuers = issuers
	}
	if c.RedisURL != "" {
		if u, err := url.Parse(c.RedisURL); err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") {
			bad("LIBRARY_REDIS_URL", "must start with redis:// or rediss://")
		}
	}
	switch c.Signup {
	case identity.SignupVerify, identity.SignupOpen, identity.SignupClosed:
	default:
		bad("LIBRARY_SIGNUP", "must be verify, open or closed, got %q", c.Signup)
	}
	c.SMTP = loadSMTP(getenv, str, bad, c.IssuerURL)
	switch lv := strings.ToLower(str("LIBRARY_LOG_LEVEL")); lv {
	case "debug":
		c.LogLevel = slog.LevelDebug
	case "info":
		c.LogLevel = slog.LevelInfo
	case "warn":
		c.LogLevel = slog.LevelWarn
	case "error":
		c.LogLevel = slog.LevelError
	default:
		bad("LIBRARY_LOG_LEVEL", "must be debug, info, warn or error, got %q", lv)
	}
	if len(problems) > 0 {
		return Config{}, fmt.Errorf("invalid configuration:\n  %s", strings.Join(problems, "\n  "))
	}
	return c, nil
}

// LogValue renders the configuration for the start-up log with every secret
// masked: passwords in URLs and the bootstrap password never reach a log.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("addr", c.Addr),
		slog.String("mongodb_uri", redactURL(c.MongoURI)),
		slog.String("database", c.Database),
		slog.Bool("embedded", c.Embedded()),
		slog.String("data_dir", c.DataDir),
		slog.String("bootstrap_admin_email", c.BootstrapAdminEmail),
		slog.String("bootstrap_admin_password", mask(c.BootstrapAdminPassword)),
		slog.Bool("demo_data", c.DemoData),
		slog.String("issuer_url", c.IssuerURL),
		slog.String("token_audience", c.TokenAudience),
		slog.Duration("access_token_ttl", c.AccessTokenTTL),
		slog.Duration("refresh_token_ttl", c.RefreshTokenTTL),
		slog.Duration("refresh_reuse_grace", c.RefreshReuseGrace),
		slog.String("signing_key_file", c.SigningKeyFile),
		slog.String("secret_key_file", c.SecretKeyFile),
		slog.String("secret_key", mask(c.SecretKey)),
		slog.String("secret_key_previous_file", c.SecretKeyPreviousFile),
		slog.String("metrics_addr", c.MetricsAddr),
		slog.String("metrics_token", mask(c.MetricsToken)),
		slog.Duration("sweep_interval", c.SweepInterval),
		slog.Bool("cookie_secure", c.CookieSecure),
		slog.Any("allowed_origins", c.AllowedOrigins),
		slog.Any("trusted_proxies", c.TrustedProxies),
		slog.Any("oidc_issuers", c.OIDCIssuers),
		slog.String("redis_url", redactURL(c.RedisURL)),
		slog.String("outbound", c.Outbound.String()),
		slog.String("rate_anonymous", formatRate(c.RateAnonymous)),
		slog.String("rate_signin", formatRate(c.RateSignIn)),
		slog.String("rate_authenticated", formatRate(c.RateAuthenticated)),
		slog.String("rate_premium", formatRate(c.RatePremium)),
		slog.String("mail_per_recipient", formatRate(c.MailPerRecipient)),
		slog.String("login_failures", fmt.Sprintf("%d per address, %d per account, %d per account and address, per %s", c.LoginFailuresPerAddress, c.LoginFailuresPerAccount, c.LoginFailuresPerAccountAddress, loginWindow)),
		slog.String("signup", string(c.Signup)),
		slog.String("smtp_host", c.SMTP.Host),
		slog.Int("smtp_port", c.SMTP.Port),
		slog.String("smtp_tls", string(c.SMTP.TLS)),
		slog.String("smtp_username", c.SMTP.Username),
		slog.String("smtp_password", mask(c.SMTP.Password)),
		slog.String("mail_from", c.SMTP.From),
		slog.String("policies_dir", c.PoliciesDir),
	)
}

// loadSMTP reads the LIBRARY_SMTP_* settings and LIBRARY_MAIL_FROM.
func loadSMTP(getenv func(string) string, str func(name string) string, bad func(name, format string, args ...any), issuerURL string) SMTPConfig {
	c := SMTPConfig{
		Host:     str("LIBRARY_SMTP_HOST"),
		TLS:      mailer.TLSMode(strings.ToLower(str("LIBRARY_SMTP_TLS"))),
		Username: str("LIBRARY_SMTP_USERNAME"),
		Password: getenv("LIBRARY_SMTP_PASSWORD"),
		From:     str("LIBRARY_MAIL_FROM"),
	}
	switch c.TLS {
	case mailer.TLSStartTLS, mailer.TLSImplicit, mailer.TLSNone:
	default:
		bad("LIBRARY_SMTP_TLS", "must be starttls, tls or none, got %q", c.TLS)
	}
	if v := str("LIBRARY_SMTP_PORT"); v != "" {
		p, err := strconv.Atoi(v)
		if err != nil || p < 1 || p > 65535 {
			bad("LIBRARY_SMTP_PORT", "must be a port number, got %q", v)
		}
		c.Port = p
	}
	if c.Port == 0 {
		c.Port = c.TLS.DefaultPort()
	}
	if c.Username != "" && c.TLS == mailer.TLSNone {
		bad("LIBRARY_SMTP_TLS", "is none, which would send LIBRARY_SMTP_USERNAME's password in clear text: use starttls or tls")
	}
	if (c.Username == "") != (c.Password == "") {
		bad("LIBRARY_SMTP_USERNAME", "and LIBRARY_SMTP_PASSWORD must be set together")
	}
	if c.From == "" {
		host := "localhost"
		if u, err := url.Parse(issuerURL); err == nil && u.Hostname() != "" {
			host = u.Hostname()
		}
		c.From = "noreply@" + host
	}
	if a, err := mail.ParseAddress(c.From); err != nil || a.Address == "" {
		bad("LIBRARY_MAIL_FROM", "must be an address such as Reading library <noreply@library.example.org>, got %q", c.From)
	}
	return c
}

func mask(secret string) string {
	if secret == "" {
		return ""
	}
	return "********"
}

// redactURL hides the password of a connection URL (and anything that does
// not even parse, since it may hold one).
func redactURL(raw string) string {
	if raw == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "********"
	}
	// Query options can carry credentials too (e.g. AWS session tokens).
	if u.RawQuery != "" {
		u.RawQuery = "redacted"
	}
	return u.Redacted()
}

func formatRate(r limiter.Rate) string { return fmt.Sprintf("%d per %s", r.Limit, r.Period) }

// WriteSettingsTable writes Settings as the Markdown table of the README.
func WriteSettingsTable(w io.Writer) error {
	var b strings.Builder
	b.WriteString("| Variable | Default | Meaning |\n|---|---|---|\n")
	for _, s := range Settings {
		def := s.Default
		if s.DefaultNote != "" {
			def = s.DefaultNote
		}
		switch {
		case def == "":
			def = "(empty)"
		case !strings.Contains(def, " "):
			def = "`" + def + "`"
		}
		help := s.Help
		if s.Secret {
			help += " Secret: masked in logs."
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", s.Name, def, help)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// checkSIP2 checks the SIP2 listener's settings: a valid address, TLS
// files given both or neither, and plain text only on loopback, where no
// one on the network reads the kiosks' passwords and students' numbers.
func (c *Config) checkSIP2(bad func(name, format string, args ...any)) {
	if (c.SIP2TLSCert == "") != (c.SIP2TLSKey == "") {
		bad("LIBRARY_SIP2_TLS_CERT", "and LIBRARY_SIP2_TLS_KEY go together: set both or neither")
	}
	if c.SIP2Addr == "" {
		return
	}
	host, port, err := net.SplitHostPort(c.SIP2Addr)
	if err != nil {
		bad("LIBRARY_SIP2_ADDR", "must be host:port, got %q", c.SIP2Addr)
		return
	}
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		bad("LIBRARY_SIP2_ADDR", "has an invalid port %q", port)
	}
	if port != "0" && (c.SIP2Addr == c.Addr || c.SIP2Addr == c.MetricsAddr) {
		bad("LIBRARY_SIP2_ADDR", "must differ from LIBRARY_ADDR and LIBRARY_METRICS_ADDR")
	}
	if c.SIP2TLSCert == "" {
		ip := net.ParseIP(host)
		if host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			bad("LIBRARY_SIP2_ADDR", "plain-text SIP2 is allowed only on a loopback address (127.0.0.1, ::1); set LIBRARY_SIP2_TLS_CERT and LIBRARY_SIP2_TLS_KEY to listen on %q", host)
		}
	}
}
