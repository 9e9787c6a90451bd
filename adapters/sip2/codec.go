// Package sip2 speaks SIP2 (the 3M Standard Interchange Protocol, version
// 2.00), the protocol of library self-check machines: it reads a kiosk's
// requests off a connection, checks their framing, sequence numbers and
// checksums, and writes the answers.
//
// A message is a two-digit code, the fixed-length fields of that message
// type, then variable fields, each a two-letter identifier, its value and
// "|". With error detection on, it ends with AY (a sequence digit) and AZ
// (four hexadecimal digits of checksum), and a carriage return ends it on
// the wire. Kiosks differ in the details, which this decoder accepts:
// CR LF as the end, a "|" or nothing between the fixed fields and AY, the
// last field's "|" left out, and no AY and AZ at all.
package sip2

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// MaxMessage is the longest message read, terminator included: a request
// is a few hundred bytes; a connection sending more is not a kiosk.
const MaxMessage = 4096

// Request codes and the length of their fixed fields (SIP2 2.00).
const (
	CodeLogin            = "93"
	CodeSCStatus         = "99"
	CodeResend           = "97"
	CodePatronStatus     = "23"
	CodePatronInfo       = "63"
	CodeItemInfo         = "17"
	CodeCheckout         = "11"
	CodeCheckin          = "09"
	CodeRenew            = "29"
	CodeEndPatronSession = "35"
)

// fixedLength is the length of each request's fixed fields, after its
// code. A request of another code is answered as unsupported.
var fixedLength = map[string]int{
	CodeLogin:            2,  // UID algorithm, PWD algorithm
	CodeSCStatus:         8,  // status code, max print width, protocol version
	CodeResend:           0,  //
	CodePatronStatus:     21, // language, transaction date
	CodePatronInfo:       31, // language, transaction date, summary
	CodeItemInfo:         18, // transaction date
	CodeCheckout:         38, // SC renewal policy, no block, transaction date, nb due date
	CodeCheckin:          37, // no block, transaction date, return date
	CodeRenew:            38, // third party allowed, no block, transaction date, nb due date
	CodeEndPatronSession: 18, // transaction date
}

// Field is one variable field.
type Field struct {
	ID    string
	Value string
}

// Request is one decoded request.
type Request struct {
	Code   string
	Fixed  string  // the fixed fields, as sent
	Fields []Field // the variable fields in order, AY and AZ left out
	// Seq is the AY sequence digit, -1 without one. Checked says whether
	// an AZ checksum came with it (and matched: a request whose checksum
	// does not match is not decoded).
	Seq     int
	Checked bool
}

// Get returns the first value of the field id and whether it was sent.
func (r Request) Get(id string) (string, bool) {
	for _, f := range r.Fields {
		if f.ID == id {
			return f.Value, true
		}
	}
	return "", false
}

// Value is Get without the second answer.
func (r Request) Value(id string) string {
	v, _ := r.Get(id)
	return v
}

// FixedAt returns n characters of the fixed fields from offset at ("" if
// they are shorter).
func (r Request) FixedAt(at, n int) string {
	if at+n > len(r.Fixed) {
		return ""
	}
	return r.Fixed[at : at+n]
}

// ErrTooLong is returned for a message longer than MaxMessage; the
// connection cannot be read further and is closed.
var ErrTooLong = errors.New("sip2: message longer than 4096 bytes")

// ReadMessage reads one message: the bytes up to a carriage return, which
// it leaves out, and without the line feed a kiosk may send after the
// carriage return of the message before. io.EOF means the kiosk closed the
// connection between messages.
func ReadMessage(r *bufio.Reader) ([]byte, error) {
	var msg []byte
	for {
		b, err := r.ReadByte()
		if err != nil {
			if err == io.EOF && len(msg) > 0 {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		switch {
		case b == '\r':
			return msg, nil
		case b == '\n' && len(msg) == 0:
			// The LF of a CR LF end.
		case len(msg) >= MaxMessage:
			return nil, ErrTooLong
		default:
			msg = append(msg, b)
		}
	}
}

// DecodeError says why a message was refused. Resend is true when the
// kiosk should send it again (its checksum did not match: it was damaged
// on the way), false when it cannot be understood however often it comes.
type DecodeError struct {
	Reason string
	Resend bool
}

func (e *DecodeError) Error() string { return "sip2: " + e.Reason }

func malformed(format string, a ...any) error {
	return &DecodeError{Reason: fmt.Sprintf(format, a...)}
}

// Decode decodes one message, without its terminator.
// Errors: *DecodeError.
func Decode(msg []byte) (Request, error) {
	s := string(msg)
	req := Request{Seq: -1}
	if len(s) < 2 {
		return req, malformed("a message of %d bytes has no code", len(s))
	}
	body := s
	if sum, ok := trailingChecksum(s); ok {
		if want := Checksum(s[:len(s)-4]); sum != want {
			return req, &DecodeError{Reason: fmt.Sprintf("checksum %s does not match the message (%s)", sum, want), Resend: true}
		}
		req.Checked = true
		body = s[:len(s)-6] // without AZ and its digits
		if n := len(body); n >= 3 && body[n-3:n-1] == "AY" && isDigit(body[n-1]) {
			req.Seq = int(body[n-1] - '0')
			body = body[:n-3]
		}
	} else if n := len(s); n >= 3 && s[n-3:n-1] == "AY" && isDigit(s[n-1]) {
		// A sequence number without a checksum.
		req.Seq = int(s[n-1] - '0')
		body = s[:n-3]
	}
	if len(body) < 2 {
		// Only a sequence number and a checksum: "AY1AZ…".
		return req, malformed("a message of %d bytes has no code before its sequence number or checksum", len(s))
	}
	req.Code = body[:2]
	if req.Code[0] < '0' || req.Code[0] > '9' || req.Code[1] < '0' || req.Code[1] > '9' {
		return req, malformed("the message code %q is not two digits", req.Code)
	}
	n, known := fixedLength[req.Code]
	if !known {
		// Decoded as far as the code: the caller answers that it is not
		// supported.
		return req, nil
	}
	if len(body) < 2+n {
		return req, malformed("message %s needs %d characters of fixed fields, has %d", req.Code, n, len(body)-2)
	}
	req.Fixed = body[2 : 2+n]
	for _, c := range []byte(req.Fixed) {
		if c < 0x20 || c == 0x7f {
			return req, malformed("the fixed fields of message %s hold a control character", req.Code)
		}
	}
	rest := body[2+n:]
	for part := range strings.SplitSeq(rest, "|") {
		if part == "" {
			continue // "||", a "|" before AY, or the last "|"
		}
		if len(part) < 2 {
			return req, malformed("a field of message %s has no two-letter identifier: %q", req.Code, part)
		}
		id := part[:2]
		if !isFieldID(id) {
			return req, malformed("a field of message %s has no two-letter identifier: %q", req.Code, id)
		}
		if strings.ContainsFunc(part[2:], isControl) {
			return req, malformed("field %s of message %s holds a control character", id, req.Code)
		}
		req.Fields = append(req.Fields, Field{ID: id, Value: part[2:]})
	}
	return req, nil
}

// trailingChecksum returns the four hex digits after a final "AZ".
func trailingChecksum(s string) (string, bool) {
	n := len(s)
	if n < 6 || s[n-6:n-4] != "AZ" {
		return "", false
	}
	sum := s[n-4:]
	for _, c := range []byte(sum) {
		if !isHex(c) {
			return "", false
		}
	}
	return strings.ToUpper(sum), true
}

// Checksum is the SIP2 checksum of a message's bytes up to and including
// "AZ": the two's complement of their 16-bit sum, as four uppercase
// hexadecimal digits.
func Checksum(upToAZ string) string {
	var sum uint16
	for i := 0; i < len(upToAZ); i++ {
		sum += uint16(upToAZ[i])
	}
	return fmt.Sprintf("%04X", -sum)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool {
	return isDigit(c) || (c >= 'A' && c <= 'F') || (c >= 'a' && c <= 'f')
}

func isFieldID(id string) bool {
	for _, c := range []byte(id) {
		if !(c >= 'A' && c <= 'Z') && !(c >= 'a' && c <= 'z') && !isDigit(c) {
			return false
		}
	}
	return true
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// Response is an answer being written: its code, fixed fields and
// variable fields in order.
type Response struct {
	Code   string
	Fixed  string
	Fields []Field
}

// Add appends a variable field.
func (r *Response) Add(id, value string) *Response {
	r.Fields = append(r.Fields, Field{ID: id, Value: value})
	return r
}

// Encode writes r as it goes on the wire. seq >= 0 adds AY with that
// digit and the AZ checksum (the kiosk's request had them); the carriage
// return ends it. Values lose "|" and control characters, which would
// break the framing; other bytes go as they are, so a text is UTF-8 (a
// title, an Arabic screen message), and the checksum counts its bytes as
// Decode does.
func (r Response) Encode(seq int) []byte {
	var b strings.Builder
	b.WriteString(r.Code)
	b.WriteString(r.Fixed)
	for _, f := range r.Fields {
		b.WriteString(f.ID)
		for i := 0; i < len(f.Value); i++ {
			if c := f.Value[i]; c == '|' || c < 0x20 || c == 0x7f {
				b.WriteByte(' ')
			} else {
				b.WriteByte(c)
			}
		}
		b.WriteByte('|')
	}
	if seq >= 0 {
		b.WriteString("AY")
		b.WriteString(strconv.Itoa(seq % 10))
		b.WriteString("AZ")
		b.WriteString(Checksum(b.String()))
	}
	b.WriteByte('\r')
	return []byte(b.String())
}
