package sip2

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/readinglibrary/service/core/service/selfcheck"
)

// Server answers kiosks on a listener. Each connection is one kiosk's
// session: it signs in (93) before anything else is answered but the
// status (99), and its requests act as desk staff of its school.
type Server struct {
	SelfCheck *selfcheck.SelfCheck
	Logger    *slog.Logger
	// Now is the clock of the answers' dates (time.Now when nil).
	Now func() time.Time
	// MaxConns is how many kiosks may be connected at once
	// (DefaultMaxConns when 0); one more is closed at once.
	MaxConns int
	// Idle is how long a connection may wait for a kiosk's next message
	// (DefaultIdle when 0): kiosks keep their connection and send a status
	// now and then.
	Idle time.Duration

	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

// Server bounds.
const (
	DefaultMaxConns = 64
	DefaultIdle     = 15 * time.Minute
	// writeTimeout bounds the write of one answer.
	writeTimeout = 30 * time.Second
	// requestTimeout bounds the work of one request.
	requestTimeout = 15 * time.Second
	// maxFailedLogins on one connection closes it: a kiosk configured
	// wrongly gets its answers, a password guesser no more tries.
	maxFailedLogins = 3
	// maxRefusals is how many messages in a row a connection may send
	// that cannot be understood before it is closed.
	maxRefusals = 10
)

// Serve answers kiosks on ln until ctx ends, then closes ln and every
// connection (a request being answered finishes first) and returns.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	maxConns := s.MaxConns
	if maxConns <= 0 {
		maxConns = DefaultMaxConns
	}
	slots := make(chan struct{}, maxConns)
	var wg sync.WaitGroup
	stop := context.AfterFunc(ctx, func() {
		_ = ln.Close()
		s.mu.Lock()
		for c := range s.conns {
			// Wake a connection waiting for its next message.
			_ = c.SetReadDeadline(time.Now())
		}
		s.mu.Unlock()
	})
	defer stop()
	defer wg.Wait()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return err
		}
		select {
		case slots <- struct{}{}:
		default:
			s.logger().Warn("sip2: too many kiosks connected; closed a new connection", "max", maxConns, "remote", c.RemoteAddr().String())
			_ = c.Close()
			continue
		}
		s.track(c, true)
		wg.Go(func() {
			defer func() { <-slots }()
			defer s.track(c, false)
			defer c.Close()
			s.serveConn(ctx, c)
		})
	}
}

// track adds or removes a live connection.
func (s *Server) track(c net.Conn, add bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conns == nil {
		s.conns = map[net.Conn]struct{}{}
	}
	if add {
		s.conns[c] = struct{}{}
	} else {
		delete(s.conns, c)
	}
}

func (s *Server) logger() *slog.Logger {
	if s.Logger == nil {
		return slog.Default()
	}
	return s.Logger
}

func (s *Server) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

// conn is one kiosk's connection.
type conn struct {
	s      *Server
	c      net.Conn
	sess   *selfcheck.Session
	remote string
	// last is the last request answered and its answer, sent again for a
	// 97 or for the same request repeated (the kiosk missed the answer).
	lastReq, lastResp []byte
	failedLogins      int
	refusals          int
}

func (s *Server) serveConn(ctx context.Context, c net.Conn) {
	k := &conn{s: s, c: c, remote: c.RemoteAddr().String()}
	r := bufio.NewReaderSize(c, MaxMessage)
	idle := s.Idle
	if idle <= 0 {
		idle = DefaultIdle
	}
	for ctx.Err() == nil {
		_ = c.SetReadDeadline(time.Now().Add(idle))
		if ctx.Err() != nil {
			// Serve's stop may have woken the connection just before
			// the deadline above was set.
			return
		}
		msg, err := ReadMessage(r)
		if err != nil {
			if errors.Is(err, ErrTooLong) {
				s.logger().Warn("sip2: a message longer than 4096 bytes; connection closed", "remote", k.remote)
			} else if !errors.Is(err, io.EOF) && ctx.Err() == nil && !isTimeout(err) {
				s.logger().Info("sip2: connection ended", "remote", k.remote, "error", err.Error())
			}
			return
		}
		out, keep := k.answer(ctx, msg)
		if out != nil {
			_ = c.SetWriteDeadline(time.Now().Add(writeTimeout))
			if _, err := c.Write(out); err != nil {
				return
			}
		}
		if !keep {
			return
		}
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// answer is the bytes to write for msg (nil for none) and whether the
// connection stays open.
func (k *conn) answer(ctx context.Context, msg []byte) ([]byte, bool) {
	req, err := Decode(msg)
	if err != nil {
		var de *DecodeError
		errors.As(err, &de)
		k.refusals++
		k.s.logger().Info("sip2: message refused", "remote", k.remote, "reason", de.Reason)
		// 96 asks the kiosk to send its last message again: it is the one
		// answer SIP2 has to a message the server cannot read.
		return resendRequest(), k.refusals < maxRefusals
	}
	if req.Code == CodeResend {
		k.refusals = 0
		return k.lastResp, true
	}
	if k.lastResp != nil && req.Seq >= 0 && bytes.Equal(msg, k.lastReq) {
		// The same request with the same sequence number: the kiosk did
		// not get the answer. Doing it again would lend or return twice.
		return k.lastResp, true
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), requestTimeout)
	defer cancel()
	resp, ok := k.handle(wctx, req)
	if !ok {
		k.refusals++
		k.s.logger().Info("sip2: message not supported", "remote", k.remote, "code", req.Code)
		return resendRequest(), k.refusals < maxRefusals
	}
	k.refusals = 0
	out := resp.Encode(req.Seq)
	if req.Seq < 0 && req.Checked {
		out = resp.Encode(0)
	}
	k.lastReq, k.lastResp = append([]byte(nil), msg...), out
	return out, k.failedLogins < maxFailedLogins
}

// resendRequest is 96 with its checksum.
func resendRequest() []byte {
	return []byte("96AZ" + Checksum("96AZ") + "\r")
}
