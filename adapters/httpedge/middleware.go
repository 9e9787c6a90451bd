package httpedge

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

// AccessCookie holds a browser's access token. Clients and openapi.json
// know it by this name, so it never changes.
const AccessCookie = "sb-access-token"

// pagePrefix is where the web app's pages live: the access cookie is read
// there as on /api, and a stale one there means an anonymous visitor.
const pagePrefix = "/library"

var saneRequestID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

// requestState is the one context value the chain adds for its own use:
// the request id, what inner layers learn for the access log, and how the
// caller authenticated. One value instead of several keeps the per-request
// allocations down (bench/README.md).
type requestState struct {
	log       *slog.Logger // the service's logger, without the request id
	id        string
	route     string
	accountID string
	cred      credential
}

type requestStateKey struct{}

func stateFrom(r *http.Request) *requestState {
	if st, ok := r.Context().Value(requestStateKey{}).(*requestState); ok {
		return st
	}
	return &requestState{}
}

// SetAccount names the account the request acted for, in its access log
// line, when the handler learns it (a sign-in, a sign-up).
func SetAccount(r *http.Request, accountID string) { stateFrom(r).accountID = accountID }

// Logger returns the request's logger, which names its request id, so a
// handler's line can be matched to the access line.
//
// The request id is added here, when something is logged, rather than once
// per request: most requests log nothing but the access line.
func Logger(r *http.Request) *slog.Logger {
	st := stateFrom(r)
	if st.log == nil {
		return slog.Default()
	}
	return st.log.With("request_id", st.id)
}

// withRequestID echoes a sane X-Request-ID or makes one, and puts the
// request's state in the context.
func (e *Edge) withRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-ID")
		if !saneRequestID.MatchString(id) {
			var b [12]byte
			_, _ = rand.Read(b[:])
			id = hex.EncodeToString(b[:])
		}
		w.Header()["X-Request-Id"] = []string{id}
		st := &requestState{log: e.deps.Logger, id: id}
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

// accessLog writes one structured line per request and records metrics. It
// logs the path without the query string and never headers or bodies, so
// tokens and passwords cannot reach the logs. The request id is an
// attribute of this line only; the logger itself does not carry it.
func (e *Edge) accessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		st := stateFrom(r)
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		if rec.status == 0 {
			rec.status = http.StatusOK
		}
		elapsed := time.Since(start)
		route := st.route
		if route == "" {
			route = "unmatched"
		}
		e.metrics.observe(route, r.Method, rec.status, elapsed)
		level := slog.LevelInfo
		if rec.status >= 500 {
			level = slog.LevelError
		}
		e.deps.Logger.LogAttrs(r.Context(), level, "request",
			slog.String("request_id", st.id),
			slog.String("method", r.Method),
			slog.String("path", r.URL.Path),
			slog.String("route", route),
			slog.Int("status", rec.status),
			slog.Int("bytes", rec.bytes),
			slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000),
			slog.String("account_id", st.accountID),
			slog.String("client", e.ClientIP(r)),
		)
	})
}

// recoverPanics turns a panic into a 500 internal_error instead of a dropped
// connection. http.ErrAbortHandler keeps its meaning.
func recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			// One line with the stack; WriteError would log the same panic
			// again as an internal error, without it.
			Logger(r).Error("panic", "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			renderError(w, r, errs.Wrap(fmt.Errorf("panic: %v", v), "panic"), http.StatusInternalServerError)
		}()
		next.ServeHTTP(w, r)
	})
}

// secureHeaders sets headers every response should carry, and gives the
// request a deadline so no database call can hang a handler forever.
func (e *Edge) secureHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Canonical keys and shared one-element values: no allocation per
		// request. Header.Add appends into a new array (cap is 1), so the
		// shared values are never written through.
		hd := w.Header()
		hd["X-Content-Type-Options"] = nosniff
		hd["Cache-Control"] = noStore
		hd["Referrer-Policy"] = noReferrer
		ctx, cancel := context.WithTimeout(r.Context(), e.cfg.RequestTimeout)
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
func (e *Edge) cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		allowed := origin != "" && e.originAllowed(origin)
		if allowed {
			hd := w.Header()
			hd.Set("Access-Control-Allow-Origin", origin)
			hd.Set("Access-Control-Allow-Credentials", "true")
			hd.Add("Vary", "Origin")
			hd.Set("Access-Control-Expose-Headers", "X-Request-ID, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After")
		}
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			if !allowed {
				WriteError(w, r, errs.E(errs.Forbidden, errs.CodeCORSRejected, "Cross-origin requests from this origin are not allowed."))
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

func (e *Edge) originAllowed(origin string) bool {
	for _, o := range e.cfg.AllowedOrigins {
		if strings.EqualFold(o, origin) {
			return true
		}
	}
	return false
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
// guesser, not the account guessed at. A token the store could not check
// is no guess: it is answered 503 at once and spends nothing, or a
// database outage would spend the anonymous budget that a whole school
// behind one address shares, and its users would get 429 instead of 503.
func (h *Handler) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		principal, cred, authErr := h.edge.identify(r)
		st := stateFrom(r)
		if authErr != nil && errs.Is(authErr, errs.Unavailable) {
			st.route = h.routeOf(r)
			WriteError(w, r, authErr)
			return
		}
		if !h.unlimited[r.URL.Path] {
			if limited := h.rateLimit(w, r, principal); limited {
				st.route = h.routeOf(r)
				return
			}
		}
		if authErr != nil {
			st.route = h.routeOf(r)
			WriteError(w, r, authErr)
			return
		}
		st.accountID = principal.AccountID
		var ctx context.Context
		if cred.account != nil {
			ctx = user.WithSession(r.Context(), *cred.account, cred.session)
		} else {
			ctx = user.WithPrincipal(r.Context(), principal)
		}
		st.cred = cred
		ctx = user.WithAddress(ctx, h.edge.ClientIP(r))
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// routeOf names the route that would serve r, for the access log and the
// metrics of a request refused before routing (a token the store could not
// check, a spent budget, a bad token): an operator sees which route an
// outage or a guesser hit. "" when no route matches r.
func (h *Handler) routeOf(r *http.Request) string {
	var m mux.RouteMatch
	if h.router.Match(r, &m) && m.MatchErr == nil && m.Route != nil {
		return m.Route.GetName()
	}
	return ""
}

// identify reads the access token from the Authorization header, or for
// /api routes and the web app's pages from the access cookie. The header
// wins when both are sent; tokens in the query string are never read.
func (e *Edge) identify(r *http.Request) (user.Principal, credential, error) {
	var token string
	var cred credential
	if r.URL.Path == metricsPath && e.cfg.MetricsToken != "" {
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
		if c, err := r.Cookie(AccessCookie); err == nil && c.Value != "" {
			token = c.Value
			cred.viaCookie = true
		}
	}
	if token == "" {
		return user.Anonymous, cred, nil
	}
	acct, session, err := e.deps.Sessions.AuthenticateSession(r.Context(), token)
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
	return path == pagePrefix || strings.HasPrefix(path, pagePrefix+"/")
}

// rateLimit counts the request and writes the rate headers; it reports
// whether it answered 429. A failing store lets the request through.
func (h *Handler) rateLimit(w http.ResponseWriter, r *http.Request, p user.Principal) bool {
	tier, key := ports.RateAnonymous, "ip:"+h.edge.ClientIP(r)
	if h.signIn[r.Method+" "+r.URL.Path] {
		tier = ports.RateSignIn
	}
	if !p.IsAnonymous() {
		tier, key = ports.RateAuthenticated, "account:"+p.AccountID
		if p.Tier == user.TierPremium {
			tier = ports.RatePremium
		}
	}
	res, err := h.edge.deps.RateLimiter.Take(r.Context(), tier, key)
	if err != nil {
		h.edge.metrics.rateLimitStoreErrors.Inc()
		Logger(r).Warn("rate limit store failed; request let through", "error", err.Error())
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
	WriteError(w, r, e)
	return true
}

// ClientIP is the peer address, or, when the peer is a trusted proxy, the
// right-most address in X-Forwarded-For that is not itself a trusted proxy
// (the left-most entries are whatever the client chose to send).
func (e *Edge) ClientIP(r *http.Request) string {
	peer, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	addr := peer.Addr().Unmap()
	if !e.trusted(addr) {
		return addr.String()
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		hop, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break
		}
		hop = hop.Unmap()
		if !e.trusted(hop) {
			return hop.String()
		}
		addr = hop
	}
	return addr.String()
}

func (e *Edge) trusted(a netip.Addr) bool {
	for _, p := range e.cfg.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// CheckCSRF applies the CSRF rule to a state-changing request authenticated
// by a cookie: it must come from an allowed origin, shown by Origin or,
// failing that, Referer.
func (e *Edge) CheckCSRF(r *http.Request) error {
	origin := r.Header.Get("Origin")
	if origin == "" {
		if ref, err := url.Parse(r.Header.Get("Referer")); err == nil && ref.Scheme != "" && ref.Host != "" {
			origin = ref.Scheme + "://" + ref.Host
		}
	}
	if origin == "" || !e.originAllowed(origin) {
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
func (h *Handler) routeGuard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := ""
		if cr := mux.CurrentRoute(r); cr != nil {
			name = cr.GetName()
		}
		st := stateFrom(r)
		st.route = name
		rt, ok := h.routes[name]
		if !ok {
			WriteError(w, r, errs.E(errs.Internal, "", "route %q has no permission", name))
			return
		}
		// Pages: every form post, signed in or not (the invitation form has
		// no session yet), must come from an allowed origin.
		if (st.cred.viaCookie || rt.Page) && unsafeMethod(r.Method) {
			if err := h.edge.CheckCSRF(r); err != nil {
				rt.fail(w, r, err)
				return
			}
		}
		p := user.PrincipalFrom(r.Context())
		err := h.edge.deps.Authorizer.Authorize(r.Context(), ports.AccessRequest{Principal: p, Action: rt.Action, Resource: rt.Resource})
		if err != nil {
			if p.IsAnonymous() {
				err = errs.E(errs.Unauthenticated, errs.CodeUnauthorized, "This route needs a valid access token.")
			}
			rt.fail(w, r, err)
			return
		}
		if unsafeMethod(r.Method) && HasBody(r) {
			if err := checkBodyType(r, rt.MediaType); err != nil {
				rt.fail(w, r, err)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
