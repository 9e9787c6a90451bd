package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// Cookie names. Clients and openapi.json know them by these names, so they
// never change.
const (
	accessCookie  = "sb-access-token"
	refreshCookie = "sb-refresh-token"
	// deviceCookie holds the device token of the last account signed in
	// from this browser; only the sign-in route reads it.
	deviceCookie = "sb-device-token"
)

var saneRequestID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

// requestState is the one context value the middleware chain adds for its
// own use: the request id, what inner layers learn for the access log, and
// how the caller authenticated. One value instead of several keeps the
// per-request allocations down (bench/README.md).
type requestState struct {
	log  *slog.Logger // the service's logger, without the request id
	id   string
	info requestInfo
	cred credential
}

type requestStateKey struct{}

func stateFrom(r *http.Request) *requestState {
	if st, ok := r.Context().Value(requestStateKey{}).(*requestState); ok {
		return st
	}
	return &requestState{}
}

// requestIDFrom returns the id given to this request.
func requestIDFrom(r *http.Request) string { return stateFrom(r).id }

// withRequestID echoes a sane X-Request-ID or makes one, and puts the
// request's state in the context.
func (h *handler) withRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-ID")
		if !saneRequestID.MatchString(id) {
			var b [12]byte
			_, _ = rand.Read(b[:])
			id = hex.EncodeToString(b[:])
		}
		w.Header()["X-Request-Id"] = []string{id}
		st := &requestState{log: h.log, id: id}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestStateKey{}, st)))
	})
}

// statusRecorder remembers the status and size of a response.
type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	n, err := s.ResponseWriter.Write(b)
	s.bytes += n
	return n, err
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// requestInfo is filled in by inner middleware for the access log.
type requestInfo struct {
	route     string
	accountID string
}

func infoFrom(r *http.Request) *requestInfo { return &stateFrom(r).info }

// accessLog writes one structured line per request and records metrics. It
// logs the path without the query string and never headers or bodies, so
// tokens and passwords cannot reach the logs.
func (h *handler) accessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		info := infoFrom(r)
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		if rec.status == 0 {
			rec.status = http.StatusOK
		}
		elapsed := time.Since(start)
		route := info.route
		if route == "" {
			route = "unmatched"
		}
		h.metrics.observe(route, r.Method, rec.status, elapsed)
		level := slog.LevelInfo
		if rec.status >= 500 {
			level = slog.LevelError
		}
		h.log.LogAttrs(r.Context(), level, "request",
			slog.String("request_id", requestIDFrom(r)),
			slog.String("method", r.Method),
			slog.String("path", r.URL.Path),
			slog.String("route", route),
			slog.Int("status", rec.status),
			slog.Int("bytes", rec.bytes),
			slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000),
			slog.String("account_id", info.accountID),
			slog.String("client", h.clientIP(r)),
		)
	})
}

// recoverPanics turns a panic into a 500 internal_error instead of a dropped
// connection. http.ErrAbortHandler keeps its meaning.
func (h *handler) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			// One line with the stack; writeError would log the same panic
			// again as an internal error, without it.
			loggerFrom(r).Error("panic", "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			renderError(w, r, errs.Wrap(fmt.Errorf("panic: %v", v), "panic"), http.StatusInternalServerError)
		}()
		next.ServeHTTP(w, r)
	})
}

// secureHeaders sets headers every API response should carry, and gives the
// request a deadline so no database call can hang a handler forever.
func (h *handler) secureHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Canonical keys and shared one-element values: no allocation per
		// request. Header.Add appends into a new array (cap is 1), so the
		// shared values are never written through.
		hd := w.Header()
		hd["X-Content-Type-Options"] = nosniff
		hd["Cache-Control"] = noStore
		hd["Referrer-Policy"] = noReferrer
		ctx, cancel := context.WithTimeout(r.Context(), h.cfg.RequestTimeout)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

var (
	nosniff    = []string{"nosniff"}
	noStore    = []string{"no-store"}
	noReferrer = []string{"no-referrer"}
)

// cors answers preflights from allowed origins and marks responses to them.
// Other origins get no CORS headers at all, so browsers refuse to expose
// responses to them.
func (h *handler) cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		allowed := origin != "" && h.originAllowed(origin)
		if allowed {
			hd := w.Header()
			hd.Set("Access-Control-Allow-Origin", origin)
			hd.Set("Access-Control-Allow-Credentials", "true")
			hd.Add("Vary", "Origin")
			hd.Set("Access-Control-Expose-Headers", "X-Request-ID, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After")
		}
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			if !allowed {
				writeError(w, r, errs.E(errs.Forbidden, errs.CodeCORSRejected, "Cross-origin requests from this origin are not allowed."))
				return
			}
			hd := w.Header()
			hd.Set("Access-Control-Allow-Methods", "GET, POST, PUT, PATCH, DELETE")
			hd.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, X-Request-ID")
			hd.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (h *handler) originAllowed(origin string) bool {
	for _, o := range h.cfg.AllowedOrigins {
		if strings.EqualFold(o, origin) {
			return true
		}
	}
	return false
}

// unlimitedPaths are operational endpoints: probes and scrapers must never
// be rate limited (the limits are for /v1, /api and unmatched routes).
var unlimitedPaths = map[string]bool{
	"/healthz": true, "/readyz": true, "/openapi.json": true,
	"/.well-known/openid-configuration": true, "/.well-known/jwks.json": true,
}

// unlimited reports whether path is an operational endpoint. /metrics is one
// only where the route exists; otherwise it is limited like any unknown path.
func (h *handler) unlimited(path string) bool {
	return unlimitedPaths[path] || (path == metricsPath && h.cfg.MetricsToken != "")
}

// credential records how the caller authenticated.
type credential struct {
	viaCookie bool
	account   *user.Account // as read while authenticating; nil for anonymous
	session   string        // the token's session; "" for external issuers
}

// authenticate finds the caller, counts the request against the caller's
// rate-limit budget, and only then refuses a bad token, so invalid tokens
// spend the client address's anonymous budget: guessing tokens costs the
// guesser, not the account guessed at.
func (h *handler) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		principal, cred, authErr := h.identify(r)
		if !h.unlimited(r.URL.Path) {
			if limited := h.rateLimit(w, r, principal); limited {
				return
			}
		}
		if authErr != nil {
			writeError(w, r, authErr)
			return
		}
		info := infoFrom(r)
		info.accountID = principal.AccountID
		var ctx context.Context
		if cred.account != nil {
			ctx = user.WithSession(r.Context(), *cred.account, cred.session)
		} else {
			ctx = user.WithPrincipal(r.Context(), principal)
		}
		stateFrom(r).cred = cred
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// identify reads the access token from the Authorization header, or for
// /api routes and the web app's /library pages from the access cookie. The
// header wins when both are sent; tokens in the query string are never read.
func (h *handler) identify(r *http.Request) (user.Principal, credential, error) {
	var token string
	var cred credential
	if r.URL.Path == metricsPath && h.cfg.MetricsToken != "" {
		// Its bearer token is the metrics token, which the route checks; it
		// is no access token and names no account.
		return user.Anonymous, cred, nil
	}
	if authz := r.Header.Get("Authorization"); authz != "" {
		scheme, value, ok := strings.Cut(authz, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(value) == "" {
			return user.Anonymous, cred, errs.E(errs.Unauthenticated, errs.CodeUnauthorized, "The Authorization header must be 'Bearer <token>'.")
		}
		token = strings.TrimSpace(value)
	} else if strings.HasPrefix(r.URL.Path, "/api/") || isPagePath(r.URL.Path) {
		if c, err := r.Cookie(accessCookie); err == nil && c.Value != "" {
			token = c.Value
			cred.viaCookie = true
		}
	}
	if token == "" {
		return user.Anonymous, cred, nil
	}
	acct, session, err := h.deps.Identity.AuthenticateSession(r.Context(), token)
	if err != nil {
		// A page visited with a stale cookie (expired token, suspended or
		// deleted account) is seen as anonymous: the page then sends the
		// browser to the sign-in form instead of showing a JSON 401.
		if cred.viaCookie && isPagePath(r.URL.Path) && (errs.Is(err, errs.Unauthenticated) || errs.Is(err, errs.Forbidden)) {
			return user.Anonymous, credential{}, nil
		}
		return user.Anonymous, cred, err
	}
	cred.account, cred.session = &acct, session
	return user.PrincipalOf(acct), cred, nil
}

// isPagePath reports whether path belongs to the web app's pages.
func isPagePath(path string) bool {
	return path == "/library" || strings.HasPrefix(path, "/library/")
}

// signInPaths are the routes that start or extend a session. Anonymous
// callers of these spend the sign-in budget of their address, not the
// anonymous one.
var signInPaths = map[string]bool{"/api/auth/login": true, "/api/auth/refresh": true}

// rateLimit counts the request and writes the rate headers; it reports
// whether it answered 429. A failing store lets the request through.
func (h *handler) rateLimit(w http.ResponseWriter, r *http.Request, p user.Principal) bool {
	tier, key := ports.RateAnonymous, "ip:"+h.clientIP(r)
	if signInPaths[r.URL.Path] && r.Method == http.MethodPost {
		tier = ports.RateSignIn
	}
	if !p.IsAnonymous() {
		tier, key = ports.RateAuthenticated, "account:"+p.AccountID
		if p.Tier == user.TierPremium {
			tier = ports.RatePremium
		}
	}
	res, err := h.deps.RateLimiter.Take(r.Context(), tier, key)
	if err != nil {
		h.metrics.rateLimitStoreErrors.Inc()
		loggerFrom(r).Warn("rate limit store failed; request let through", "error", err.Error())
		return false
	}
	hd := w.Header()
	hd["X-Ratelimit-Limit"] = []string{strconv.FormatInt(res.Limit, 10)}
	hd["X-Ratelimit-Remaining"] = []string{strconv.FormatInt(res.Remaining, 10)}
	hd["X-Ratelimit-Reset"] = []string{strconv.FormatInt(res.Reset.Unix(), 10)}
	if !res.Reached {
		return false
	}
	wait := time.Until(res.Reset)
	if wait < time.Second {
		wait = time.Second
	}
	e := errs.E(errs.RateLimited, errs.CodeRateLimitExceeded, "Too many requests; try again after the window resets.")
	e.Details = map[string]any{"limit": res.Limit, "reset": res.Reset.Unix()}
	e.RetryAfter = wait
	writeError(w, r, e)
	return true
}

// clientIP is the peer address, or, when the peer is a trusted proxy, the
// right-most address in X-Forwarded-For that is not itself a trusted proxy
// (the left-most entries are whatever the client chose to send).
func (h *handler) clientIP(r *http.Request) string {
	peer, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	addr := peer.Addr().Unmap()
	if !h.trusted(addr) {
		return addr.String()
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		hop, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break
		}
		hop = hop.Unmap()
		if !h.trusted(hop) {
			return hop.String()
		}
		addr = hop
	}
	return addr.String()
}

func (h *handler) trusted(a netip.Addr) bool {
	for _, p := range h.cfg.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// checkCSRF applies the CSRF rule to a state-changing request
// authenticated by a cookie: it must come from an allowed origin, shown by
// Origin or, failing that, Referer.
func (h *handler) checkCSRF(r *http.Request) error {
	origin := r.Header.Get("Origin")
	if origin == "" {
		if ref, err := url.Parse(r.Header.Get("Referer")); err == nil && ref.Scheme != "" && ref.Host != "" {
			origin = ref.Scheme + "://" + ref.Host
		}
	}
	if origin == "" || !h.originAllowed(origin) {
		return errs.E(errs.Forbidden, errs.CodeCSRFRejected, "Cookie-authenticated changes must come from an allowed origin.")
	}
	return nil
}

func unsafeMethod(m string) bool {
	return m == http.MethodPost || m == http.MethodPut || m == http.MethodPatch || m == http.MethodDelete
}

// routeGuard runs for matched routes only: it records the route, enforces
// the CSRF rule for cookie sessions, asks the policies whether the caller may
// use the route (anonymous callers get 401, others 403), and refuses bodies
// of another type than the route takes (JSON unless it says otherwise).
func (h *handler) routeGuard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := ""
		if cr := mux.CurrentRoute(r); cr != nil {
			name = cr.GetName()
		}
		infoFrom(r).route = name
		rt, ok := h.routes[name]
		if !ok {
			writeError(w, r, errs.E(errs.Internal, "", "route %q has no permission", name))
			return
		}
		cred := stateFrom(r).cred
		// Pages: every form post, signed in or not (the invitation form has
		// no session yet), must come from an allowed origin.
		if (cred.viaCookie || rt.Page) && unsafeMethod(r.Method) {
			if err := h.checkCSRF(r); err != nil {
				rt.fail(w, r, err)
				return
			}
		}
		p := user.PrincipalFrom(r.Context())
		err := h.deps.Authorizer.Authorize(r.Context(), ports.AccessRequest{Principal: p, Action: rt.Action, Resource: rt.Resource})
		if err != nil {
			if p.IsAnonymous() {
				err = errs.E(errs.Unauthenticated, errs.CodeUnauthorized, "This route needs a valid access token.")
			}
			rt.fail(w, r, err)
			return
		}
		if unsafeMethod(r.Method) && hasBody(r) {
			if err := checkMediaType(r, rt.mediaType); err != nil {
				rt.fail(w, r, err)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
