package app

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"sync/atomic"
	"time"

	// The IANA zone database, embedded: the image is FROM scratch, with no
	// zoneinfo of its own, and schools and accounts name their time zones.
	_ "time/tzdata"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/ulule/limiter/v3"

	"github.com/readinglibrary/service/adapters/coverimage"
	"github.com/readinglibrary/service/adapters/coversource"
	"github.com/readinglibrary/service/adapters/httpapi"
	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/adapters/jwttoken"
	"github.com/readinglibrary/service/adapters/keyseal"
	"github.com/readinglibrary/service/adapters/labels"
	"github.com/readinglibrary/service/adapters/ladonauthz"
	"github.com/readinglibrary/service/adapters/mailer"
	"github.com/readinglibrary/service/adapters/marc"
	"github.com/readinglibrary/service/adapters/oidcverify"
	"github.com/readinglibrary/service/adapters/outbound"
	"github.com/readinglibrary/service/adapters/passwordhash"
	"github.com/readinglibrary/service/adapters/ratelimit"
	"github.com/readinglibrary/service/adapters/sip2"
	"github.com/readinglibrary/service/adapters/sru"
	"github.com/readinglibrary/service/adapters/uploadspool"
	"github.com/readinglibrary/service/adapters/webapp"
	"github.com/readinglibrary/service/cmd/libraryd/wire"
	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service"
	"github.com/readinglibrary/service/core/service/identity"
	"github.com/readinglibrary/service/core/service/reading"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/service/users"
	"github.com/readinglibrary/service/policies"
	"github.com/readinglibrary/service/ports"
)

// Sign-in throttle: failure counts per 15 minutes come from the
// configuration; a device token is valid for 30 days and trusted for 5 wrong
// passwords.
const (
	loginWindow           = 15 * time.Minute
	loginDeviceTTL        = 30 * 24 * time.Hour
	loginDeviceFailures   = 5
	deviceTokenKeyPurpose = "login device tokens"
)

// BootstrapAdminName is the name of the admin account LIBRARY_BOOTSTRAP_ADMIN_*
// creates; its password may not contain it.
const BootstrapAdminName = "Administrator"

// App is the wired service.
type App struct {
	Config   Config
	Handler  *httpedge.Handler
	Logger   *slog.Logger
	Repos    ports.Repositories
	Identity *identity.Identity
	Books    *reading.Books
	Library  *service.Library
	// Sweeper deletes expired refresh tokens and invitations; Serve runs it
	// every LIBRARY_SWEEP_INTERVAL.
	Sweeper *usecase.Sweeper
	// Demo lists the demo accounts present in the store (empty unless
	// LIBRARY_DEMO_DATA is on).
	Demo []DemoAccount

	closers []func(context.Context) error
	observe func(statement string)
	hasher  ports.PasswordHasher // nil: Argon2id at the OWASP parameters
	// onImportReading is called by each holdings import holding its slot.
	onImportReading func(context.Context)
	// deviceKey signs sign-in device tokens; derived from the secret key,
	// or from the signing key file when that replaces it.
	deviceKey   []byte
	draining    atomic.Bool // set when shutdown begins: /readyz answers 503
	metricsAddr atomic.Pointer[string]
	sip2Addr    atomic.Pointer[string]
}

// MetricsAddr is the address the metrics listener is bound to once Serve
// has started it, empty before and when LIBRARY_METRICS_ADDR is off.
func (a *App) MetricsAddr() string {
	if p := a.metricsAddr.Load(); p != nil {
		return *p
	}
	return ""
}

// readiness is the database ping behind /readyz, failing once shutdown has
// begun so a load balancer stops sending new requests during the drain.
type readiness struct {
	db       ports.Pinger
	draining *atomic.Bool
}

func (r readiness) Ping(ctx context.Context) error {
	if r.draining.Load() {
		return errs.E(errs.Unavailable, errs.CodeShuttingDown, "The service is shutting down.")
	}
	return r.db.Ping(ctx)
}

// Option adjusts how New builds the service; options exist for tests.
type Option func(*App)

// WithStatementObserver calls f with the name of every statement (SQLite)
// or command (MongoDB) the repositories send, so tests and load runs can
// count what a request costs on either store.
func WithStatementObserver(f func(name string)) Option { return func(a *App) { a.observe = f } }

// WithPasswordHasher replaces the Argon2id hasher at the OWASP parameters,
// so tests can sign hundreds of accounts in at once under the race detector
// with the same code at a lower cost.
func WithPasswordHasher(h ports.PasswordHasher) Option { return func(a *App) { a.hasher = h } }

// WithImportReading sets a function each holdings import calls once it
// holds its import slot, before it reads its file.
func WithImportReading(f func(context.Context)) Option {
	return func(a *App) { a.onImportReading = f }
}

// New builds every adapter and use case. On error, whatever was started is
// stopped again.
func New(ctx context.Context, cfg Config, logger *slog.Logger, opts ...Option) (a *App, err error) {
	a = &App{Config: cfg, Logger: logger}
	for _, o := range opts {
		o(a)
	}
	defer func() {
		if err != nil {
			_ = a.Close(context.Background())
			a = nil
		}
	}()

	if err := a.openDatabase(ctx); err != nil {
		return a, err
	}

	var keys []auth.SigningKey
	if cfg.SigningKeyFile != "" {
		k, err := jwttoken.KeyFromPEMFile(cfg.SigningKeyFile)
		if err != nil {
			return a, fmt.Errorf("LIBRARY_SIGNING_KEY_FILE: %w", err)
		}
		keys = []auth.SigningKey{k}
		mac := hmac.New(sha256.New, k.PrivateKeyPEM)
		mac.Write([]byte(deviceTokenKeyPurpose))
		a.deviceKey = mac.Sum(nil)
	} else if keys, err = a.loadSigningKeys(ctx); err != nil {
		return a, err
	}
	if cfg.Embedded() {
		// The store's files and the default secret key exist by now.
		if dir, err := filepath.Abs(cfg.DataDir); err == nil {
			warnReadableData(logger, dir)
		}
	}
	tokens, err := jwttoken.New(jwttoken.Config{Issuer: cfg.IssuerURL, Audience: cfg.TokenAudience, TTL: cfg.AccessTokenTTL}, keys)
	if err != nil {
		return a, fmt.Errorf("token service: %w", err)
	}

	var authz *ladonauthz.Authorizer
	if cfg.PoliciesDir != "" {
		authz, err = ladonauthz.Load(cfg.PoliciesDir)
	} else {
		authz, err = ladonauthz.LoadFS(policies.Files)
	}
	if err != nil {
		return a, fmt.Errorf("load policies: %w", err)
	}

	var store limiter.Store
	if cfg.RedisURL != "" {
		s, closeRedis, err := ratelimit.NewRedisStore(ctx, cfg.RedisURL)
		if err != nil {
			return a, fmt.Errorf("LIBRARY_REDIS_URL: %w", err)
		}
		a.closers = append(a.closers, func(context.Context) error { return closeRedis() })
		store = s
	} else {
		store = ratelimit.NewMemoryStore()
	}
	limits, err := ratelimit.New(store, map[ports.RateTier]limiter.Rate{
		ports.RateAnonymous: cfg.RateAnonymous, ports.RateAuthenticated: cfg.RateAuthenticated, ports.RatePremium: cfg.RatePremium,
		ports.RateSignIn: cfg.RateSignIn, ports.RateMailRecipient: cfg.MailPerRecipient,
	})
	if err != nil {
		return a, fmt.Errorf("rate limiter: %w", err)
	}
	throttle := newLoginThrottle(store, cfg, a.deviceKey)
	registry := prometheus.NewRegistry()
	mailCapped := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "library_mail_capped_total", Help: "Mails not sent because their recipient had all LIBRARY_MAIL_PER_RECIPIENT allows, by kind.",
	}, []string{"kind"})
	registry.MustRegister(mailCapped)

	if a.hasher == nil {
		a.hasher = passwordhash.New()
	}
	mail, err := newMailer(cfg, logger)
	if err != nil {
		return a, err
	}
	// Audit entries are stored by one writer after their request is
	// answered. Its closer is added before the closers of everything that
	// records entries (mail, import jobs), so it runs after them: the
	// queue drains before the database closes.
	auditQueue := usecase.NewQueuedAuditLog(a.Repos.AuditLog, usecase.DefaultAuditQueue, func(op string, err error) {
		logger.Error("background job failed", "op", op, "error", err.Error())
	})
	a.Repos.AuditLog = auditQueue
	a.closers = append(a.closers, auditQueue.Close)
	registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "library_audit_pending", Help: "Audit log entries recorded and not yet stored.",
	}, func() float64 { return float64(auditQueue.Pending()) }))
	idDeps := wire.Identity(a.Repos, tokens, a.hasher, throttle)
	idDeps.Mailer, idDeps.MailCap = mail, limits
	if len(cfg.OIDCIssuers) > 0 {
		idDeps.External = oidcverify.New(cfg.OIDCIssuers).FetchWith(outbound.NewClient(
			cfg.Outbound.WithHosts(issuerHosts(cfg.OIDCIssuers)...), outbound.Limits{Timeout: oidcverify.FetchTimeout}))
		logger.Info("trusting external identity providers", "issuers", len(cfg.OIDCIssuers))
	}
	a.Identity = identity.NewIdentity(idDeps, identity.IdentityConfig{
		RefreshTTL: cfg.RefreshTokenTTL, Signup: cfg.Signup, ReuseGrace: cfg.RefreshReuseGrace, LinkBase: cfg.IssuerURL,
		OnBackgroundError: func(op string, err error) { logger.Warn("background work failed", "op", op, "error", err.Error()) },
		OnMailCapped: func(kind, recipient string) {
			mailCapped.WithLabelValues(kind).Inc()
			logger.Warn("mail not sent: its recipient had all the mail LIBRARY_MAIL_PER_RECIPIENT allows", "kind", kind, "recipient_digest", recipient)
		},
	})
	registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "library_mail_pending", Help: "Mails being prepared or sent after their request was answered.",
	}, func() float64 { return float64(a.Identity.PendingMail()) }))
	// Closers run newest first: mail still being sent finishes before the
	// database closes.
	a.closers = append(a.closers, func(ctx context.Context) error { a.Identity.Wait(ctx); return nil })
	userService := users.NewUsers(wire.Users(a.Repos, authz))
	if n, err := userService.FinishDeletions(ctx); err != nil {
		return a, fmt.Errorf("finish interrupted account deletions: %w", err)
	} else if n > 0 {
		logger.Info("finished interrupted account deletions", "accounts", n)
	}
	// Catalogue servers are a school's setting: every lookup goes through the
	// outbound client, which calls only what cfg.Outbound allows.
	catalogue := outbound.NewClient(cfg.Outbound, outbound.Limits{Timeout: sru.DefaultTimeout, MaxBytes: sru.MaxAnswerBytes})
	// So are cover services: the operator's, Open Library's by default.
	var covers ports.CoverSource
	if cfg.CoverSource != "" {
		src, err := coversource.New(outbound.NewClient(cfg.Outbound, outbound.Limits{Timeout: coversource.DefaultTimeout, MaxBytes: library.MaxCoverBytes + 1}),
			cfg.CoverSource)
		if err != nil {
			return a, fmt.Errorf("LIBRARY_COVER_SOURCE: %w", err)
		}
		covers = src
	}
	a.Library = service.NewLibrary(wire.Library(a.Repos), a.Identity, service.LibraryConfig{
		Codec:      marc.NewCodec(),
		Catalogue:  sru.New(catalogue, sru.DefaultTimeout),
		MaxImports: cfg.MaxImports,
		OnJobError: func(op string, err error) {
			logger.Error("background job failed", "op", op, "error", err.Error())
		},
		OnImportReading: a.onImportReading,
		CoverImages:     coverimage.Normalizer{},
		CoverSource:     covers,
		Authz:           authz,
	})
	// A student may choose that a book put on their reading list is held
	// for them at their school's library.
	booksDeps := wire.Books(a.Repos, authz)
	booksDeps.Holds = a.Library.WantToRead
	a.Books = reading.NewBooks(booksDeps)
	uploads, err := uploadspool.Open(cfg.UploadDir)
	if err != nil {
		return a, fmt.Errorf("LIBRARY_UPLOAD_DIR: %w", err)
	}
	// Holdings import jobs running at shutdown get the shutdown timeout to
	// end; then they are stopped and stored as failed (nothing imported),
	// before the database closes.
	a.closers = append(a.closers, func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, cfg.ShutdownTimeout)
		defer cancel()
		a.Library.StopImports(ctx)
		return nil
	})
	// The audit log's oldest entries go a thousand at a time, at most
	// ten thousand a sweep, so that a long-unswept log never makes one
	// sweep hold the writer for long; the next sweep takes the rest.
	const auditSweepBatch, auditSweepBatches = 1000, 10
	a.Sweeper = usecase.NewSweeper(a.Repos.Expiry, cfg.SweepInterval,
		usecase.SweepTask{Kind: "expired_holds", Run: a.Library.Holds.ExpireSweep},
		usecase.SweepTask{Kind: "anonymized_loans", Run: a.Library.Circulation.AnonymizeHistory},
		usecase.SweepTask{Kind: "notices_sent", Run: func(ctx context.Context, now time.Time) (int64, error) {
			res, err := a.Library.Notices.Run(ctx, now)
			return int64(res.Sent), err
		}},
		a.Library.Audit.AuditRetention(cfg.AuditRetentionDays, auditSweepBatch, auditSweepBatches))

	if cfg.DemoData {
		if !cfg.Embedded() {
			logger.Warn("LIBRARY_DEMO_DATA is on with an external database: demo accounts have published passwords")
		}
		if a.Demo, err = seedDemo(ctx, a.Repos, a.Identity, a.Books, a.Library); err != nil {
			return a, fmt.Errorf("seed demo data: %w", err)
		}
	}
	if cfg.BootstrapAdminEmail != "" {
		created, err := a.Identity.EnsureAdmin(ctx, cfg.BootstrapAdminEmail, cfg.BootstrapAdminPassword, BootstrapAdminName)
		if err != nil {
			return a, fmt.Errorf("create the bootstrap admin: %w", err)
		}
		logger.Info("bootstrap admin", "email", cfg.BootstrapAdminEmail, "created", created)
	}

	edge := httpedge.New(httpedge.Deps{
		Sessions: a.Identity, Authorizer: authz, RateLimiter: limits, Logger: logger, Registry: registry,
	}, httpedge.Config{
		IssuerURL: cfg.IssuerURL, CookieSecure: cfg.CookieSecure,
		AllowedOrigins: cfg.AllowedOrigins, TrustedProxies: cfg.TrustedProxies, MetricsToken: cfg.MetricsToken,
		RequestTimeout: cfg.RequestTimeout,
	})
	a.Handler = frontDoors(edge, httpapi.Deps{
		Identity: a.Identity, Users: userService, Books: a.Books, Library: a.Library,
		Tokens: tokens, Health: readiness{db: a.Repos.Health, draining: &a.draining}, Labels: labels.Printer{}, Slips: labels.Printer{},
		Uploads: uploads,
	}, webapp.Deps{Library: a.Library, Identity: a.Identity, Authorizer: authz, Uploads: uploads}, webapp.Config{CookieSecure: cfg.CookieSecure})
	return a, nil
}

// frontDoors serves the JSON API and the librarian's pages through the one
// edge, so both pass the same chain: cookie or bearer session, rate limits,
// CSRF rule, route policy.
func frontDoors(edge *httpedge.Edge, api httpapi.Deps, web webapp.Deps, webCfg webapp.Config) *httpedge.Handler {
	routes := httpapi.New(api, edge).Routes()
	routes = append(routes, webapp.New(web, webCfg).EdgeRoutes()...)
	return edge.Handler(routes)
}

// newLoginThrottle is the sign-in throttle over store with cfg's limits.
func newLoginThrottle(store limiter.Store, cfg Config, deviceKey []byte) *ratelimit.LoginThrottle {
	return ratelimit.NewLoginThrottle(store, ratelimit.LoginLimits{
		PerAddress:        limiter.Rate{Period: loginWindow, Limit: cfg.LoginFailuresPerAddress},
		PerAccountAddress: limiter.Rate{Period: loginWindow, Limit: cfg.LoginFailuresPerAccountAddress},
		PerAccount:        limiter.Rate{Period: loginWindow, Limit: cfg.LoginFailuresPerAccount},
		PerDevice:         loginDeviceFailures,
		DeviceTTL:         loginDeviceTTL,
	}, deviceKey)
}

// loadSigningKeys loads (creating the first) the signing keys kept in the
// database, which stores them encrypted with the secret key. Keys stored in
// plain text by an earlier version, or encrypted with the previous secret
// key, are encrypted with the current one first. A key that does not decrypt
// stops the start: generating a new one would sign everybody out and hide a
// wrong secret key.
func (a *App) loadSigningKeys(ctx context.Context) ([]auth.SigningKey, error) {
	ring, err := a.secretKeyring(ctx)
	if err != nil {
		return nil, err
	}
	a.deviceKey = ring.DeriveKey(deviceTokenKeyPurpose)
	sealed := keyseal.NewSigningKeys(a.Repos.SigningKeys, ring)
	n, err := sealed.Seal(ctx)
	if err != nil {
		return nil, fmt.Errorf("encrypt the token signing keys: %w", err)
	}
	if n > 0 {
		a.Logger.Info("encrypted stored signing keys with the current secret key", "keys", n, "secret_key_id", ring.KeyID())
	}
	keys, err := jwttoken.LoadKeys(ctx, sealed, time.Now())
	if err != nil {
		return nil, fmt.Errorf("load the token signing key: %w", err)
	}
	return keys, nil
}

// newMailer is the SMTP mailer, or the development outbox when no SMTP
// host is configured.
func newMailer(cfg Config, logger *slog.Logger) (ports.Mailer, error) {
	if cfg.SMTP.Host == "" {
		dir := filepath.Join(cfg.DataDir, "outbox")
		log := logger.Info
		if !cfg.Embedded() || cfg.Signup == identity.SignupVerify && !cfg.DemoData {
			log = logger.Warn // production-like: nobody reads that directory
		}
		log("no SMTP server configured (LIBRARY_SMTP_HOST): mail is written to the outbox directory, not sent", "dir", dir)
		return mailer.NewOutbox(dir, logger), nil
	}
	m, err := mailer.NewSMTP(mailer.SMTPConfig{
		Host: cfg.SMTP.Host, Port: cfg.SMTP.Port, TLS: cfg.SMTP.TLS,
		Username: cfg.SMTP.Username, Password: cfg.SMTP.Password, From: cfg.SMTP.From,
	})
	if err != nil {
		return nil, fmt.Errorf("LIBRARY_SMTP_*: %w", err)
	}
	return m, nil
}

// Close stops everything New started, newest first.
func (a *App) Close(ctx context.Context) error {
	var errList []error
	for i := len(a.closers) - 1; i >= 0; i-- {
		errList = append(errList, a.closers[i](ctx))
	}
	a.closers = nil
	return errors.Join(errList...)
}

// NewServer returns the HTTP server with timeouts and header limits that
// keep slow or greedy clients from holding connections.
func (a *App) NewServer() *http.Server {
	return &http.Server{
		Handler:           a.Handler,
		ReadHeaderTimeout: a.Config.ReadHeaderTimeout,
		ReadTimeout:       a.Config.ReadTimeout,
		WriteTimeout:      a.Config.WriteTimeout,
		IdleTimeout:       a.Config.IdleTimeout,
		MaxHeaderBytes:    32 << 10,
		ErrorLog:          slog.NewLogLogger(a.Logger.Handler(), slog.LevelWarn),
	}
}

// Serve answers on ln until ctx is cancelled, then stops accepting, lets
// in-flight requests finish within the shutdown timeout and returns. It
// serves the metrics on their own listener (LIBRARY_METRICS_ADDR) meanwhile.
func (a *App) Serve(ctx context.Context, ln net.Listener) error {
	if a.Config.MetricsAddr != "" {
		mln, err := net.Listen("tcp", a.Config.MetricsAddr)
		if err != nil {
			return fmt.Errorf("LIBRARY_METRICS_ADDR: listen on %s: %w (set another address, or off)", a.Config.MetricsAddr, err)
		}
		msrv := a.NewServer()
		msrv.Handler = a.Handler.MetricsHandler()
		go func() { _ = msrv.Serve(mln) }()
		// Scrapes are short and a missed one is harmless: close at once.
		defer msrv.Close()
		addr := mln.Addr().String()
		a.metricsAddr.Store(&addr)
		a.Logger.Info("serving metrics", "addr", addr)
	}
	if a.Config.SIP2Addr != "" {
		stop, err := a.serveSIP2(ctx)
		if err != nil {
			return err
		}
		defer stop()
	}
	sweepCtx, stopSweeps := context.WithCancel(ctx)
	sweeps := make(chan struct{})
	go func() { defer close(sweeps); a.sweepEvery(sweepCtx, a.Config.SweepInterval) }()
	// Stop sweeping before returning, so that Close never closes the store
	// under a sweep.
	defer func() { stopSweeps(); <-sweeps }()

	srv := a.NewServer()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// Not ready first, so load balancers take this replica out, then keep
	// serving through the drain delay before the listener closes.
	a.draining.Store(true)
	a.Logger.Info("shutting down", "drain", a.Config.ShutdownDrain, "timeout", a.Config.ShutdownTimeout)
	if a.Config.ShutdownDrain > 0 {
		select {
		case err := <-errc:
			return err
		case <-time.After(a.Config.ShutdownDrain):
		}
	}
	sctx, cancel := context.WithTimeout(context.Background(), a.Config.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("graceful shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// serveSIP2 listens for self-check kiosks on LIBRARY_SIP2_ADDR, with TLS
// when its files are set, until ctx ends; stop waits for the listener and
// the requests being answered to end.
func (a *App) serveSIP2(ctx context.Context) (stop func(), err error) {
	ln, err := net.Listen("tcp", a.Config.SIP2Addr)
	if err != nil {
		return nil, fmt.Errorf("LIBRARY_SIP2_ADDR: listen on %s: %w", a.Config.SIP2Addr, err)
	}
	if a.Config.SIP2TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(a.Config.SIP2TLSCert, a.Config.SIP2TLSKey)
		if err != nil {
			_ = ln.Close()
			return nil, fmt.Errorf("LIBRARY_SIP2_TLS_CERT, LIBRARY_SIP2_TLS_KEY: %w", err)
		}
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	}
	srv := &sip2.Server{SelfCheck: a.Library.SelfCheck, Logger: a.Logger}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ctx, ln); err != nil {
			a.Logger.Error("SIP2 listener stopped", "error", err.Error())
		}
	}()
	addr := ln.Addr().String()
	a.sip2Addr.Store(&addr)
	a.Logger.Info("serving SIP2 for self-check kiosks", "addr", addr, "tls", a.Config.SIP2TLSCert != "")
	return func() { <-done }, nil
}

// SIP2Addr is the address the SIP2 listener took ("" before Serve, or
// without one).
func (a *App) SIP2Addr() string {
	if p := a.sip2Addr.Load(); p != nil {
		return *p
	}
	return ""
}

// sweepEvery sweeps at once, so that a service restarted more often than
// the interval still sweeps, then at every interval until ctx ends. Each
// replica tries; the claim of the slot lets one of them sweep.
func (a *App) sweepEvery(ctx context.Context, interval time.Duration) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		res, err := a.Sweeper.Sweep(ctx, time.Now())
		switch {
		case err != nil && ctx.Err() == nil:
			a.Logger.Warn("sweep of expired records failed; the next interval tries again", "error", err.Error())
		case res.Claimed:
			a.Logger.Info("swept expired records", "slot", res.Slot, "deleted", res.Deleted)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// Run is the whole program: configuration, wiring, serving until ctx ends.
func Run(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
	cfg, err := LoadConfig(getenv)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewJSONHandler(stdout, &slog.HandlerOptions{Level: cfg.LogLevel}))
	logger.Info("starting", "config", cfg)

	startCtx, cancel := context.WithTimeout(ctx, 60*time.Second)
	a, err := New(startCtx, cfg, logger)
	cancel()
	if err != nil {
		return err
	}
	defer func() {
		if err := a.Close(context.Background()); err != nil {
			logger.Warn("close", "error", err.Error())
		}
	}()

	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("LIBRARY_ADDR: listen on %s: %w", cfg.Addr, err)
	}
	printBanner(stdout, cfg, ln.Addr(), a.Demo)
	logger.Info("listening", "addr", ln.Addr().String())
	return a.Serve(ctx, ln)
}

// issuerHosts are the hosts of the identity providers the operator
// configured: the outbound client that fetches their keys may call them
// wherever they are.
func issuerHosts(issuers []oidcverify.Issuer) []string {
	var hosts []string
	for _, is := range issuers {
		if u, err := url.Parse(is.URL); err == nil && u.Hostname() != "" {
			hosts = append(hosts, u.Hostname())
		}
	}
	return hosts
}
