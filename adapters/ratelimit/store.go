// Package ratelimit implements ports.RateLimiter and ports.LoginThrottle
// with fixed-window counters from ulule/limiter/v3, kept in process memory
// or, when several replicas must share one budget, in Redis.
//
// Like every adapter it may import ports, the core packages and outside
// libraries, but no other adapter and nothing under cmd (the layer rules of
// test/architecture_test.go).
package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/ulule/limiter/v3"
	"github.com/ulule/limiter/v3/drivers/store/memory"
	redisstore "github.com/ulule/limiter/v3/drivers/store/redis"
)

// Store key prefixes. Every counter key is "<prefix>:<tier>:<key>" or
// "<prefix>:login:<kind>:<value>" (kinds: client, email, pair, device, lift,
// and flight, the sign-in attempts being checked).
const (
	MemoryPrefix = "library"
	RedisPrefix  = "library:ratelimit"
)

// NewMemoryStore returns an in-process store. Each replica counts on its
// own, so with N replicas the effective limit is N times the configured one.
func NewMemoryStore() limiter.Store {
	return memory.NewStoreWithOptions(limiter.StoreOptions{
		Prefix:          MemoryPrefix,
		CleanUpInterval: limiter.DefaultCleanUpInterval,
	})
}

// NewRedisStore connects to the Redis server at rawURL
// (redis://[user:password@]host:port/db, or rediss:// for TLS), checks that
// it answers and loads the limiter's Lua scripts, so an unreachable server is
// a start-up error. Counting is atomic across replicas (the scripts run in
// Redis). Unless the URL's query says otherwise, the client retries once and
// times out after 1 s dialling and 500 ms reading or writing. The returned
// function closes the connection pool. Errors never contain the password.
func NewRedisStore(ctx context.Context, rawURL string) (limiter.Store, func() error, error) {
	opts, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, nil, fmt.Errorf("ratelimit: invalid Redis URL: %s", redactedParseError(err, rawURL))
	}
	applyDefaults(opts, rawURL)
	client := redis.NewClient(opts)
	if err := client.Ping(ctx).Err(); err != nil {
		_ = client.Close()
		return nil, nil, fmt.Errorf("ratelimit: connect to Redis at %s (db %d): %w", opts.Addr, opts.DB, err)
	}
	store, err := redisstore.NewStoreWithOptions(client, limiter.StoreOptions{Prefix: RedisPrefix})
	if err != nil {
		_ = client.Close()
		return nil, nil, fmt.Errorf("ratelimit: prepare Redis store at %s (db %d): %w", opts.Addr, opts.DB, err)
	}
	return store, client.Close, nil
}

// Client defaults for a store on the request path, used unless the URL's
// query sets them (e.g. ?max_retries=3&dial_timeout=5s): while Redis is
// down every request waits for it before being let through, so fail fast.
const (
	defaultMaxRetries   = 1
	defaultDialTimeout  = time.Second
	defaultReadTimeout  = 500 * time.Millisecond
	defaultWriteTimeout = 500 * time.Millisecond
)

func applyDefaults(opts *redis.Options, rawURL string) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return
	}
	q := u.Query()
	if !q.Has("max_retries") {
		opts.MaxRetries = defaultMaxRetries
	}
	if !q.Has("dial_timeout") {
		opts.DialTimeout = defaultDialTimeout
	}
	if !q.Has("read_timeout") {
		opts.ReadTimeout = defaultReadTimeout
	}
	if !q.Has("write_timeout") {
		opts.WriteTimeout = defaultWriteTimeout
	}
	// Let a request's deadline bound the store call too.
	opts.ContextTimeoutEnabled = true
}

// redactedParseError describes why rawURL did not parse without repeating
// it: url.Parse errors quote the whole URL, password included.
func redactedParseError(err error, rawURL string) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	msg := err.Error()
	if u, perr := url.Parse(rawURL); perr == nil {
		if pw, ok := u.User.Password(); ok && pw != "" {
			msg = strings.ReplaceAll(msg, pw, "xxxxx")
		}
	}
	return msg
}
