// Package coversource asks a cover service for a title's cover by ISBN:
// Open Library's covers service by default, or the URL template the
// operator sets (LIBRARY_COVER_SOURCE). Every request goes through the
// HTTP client cmd hands to New, the service's outbound client
// (adapters/outbound), which decides which addresses may be called; on top
// of it the answer is cut at library.MaxCoverBytes and a request gives up
// after DefaultTimeout. What a cover service said goes to the log with its
// host, never to a user.
//
// Like every adapter it may import ports, the core packages and outside
// libraries; nothing in the core imports it.
package coversource

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

// DefaultTemplate is Open Library's covers service: the large size, and a
// 404 instead of a blank image when it has no cover.
const DefaultTemplate = "https://covers.openlibrary.org/b/isbn/{isbn}-L.jpg?default=false"

// DefaultTimeout bounds one cover request, redirects included (Open
// Library redirects to its archive's storage).
const DefaultTimeout = 10 * time.Second

// Source is the ports.CoverSource of one URL template.
type Source struct {
	http     *http.Client
	template string
}

var _ ports.CoverSource = (*Source)(nil)

// New returns a source asking template (with {isbn} where the ISBN goes)
// through hc, the service's outbound client.
// Errors: a template that is not an http or https URL with {isbn}.
func New(hc *http.Client, template string) (*Source, error) {
	if hc == nil {
		panic("coversource: New needs the service's outbound HTTP client")
	}
	if err := CheckTemplate(template); err != nil {
		return nil, err
	}
	return &Source{http: hc, template: template}, nil
}

// CheckTemplate refuses a template that is not an http or https URL with
// {isbn} where the ISBN goes (the configuration's check at start).
func CheckTemplate(template string) error {
	u, err := url.Parse(strings.ReplaceAll(template, "{isbn}", "9780000000002"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || !strings.Contains(template, "{isbn}") {
		return fmt.Errorf("cover source %q: want an http or https URL with {isbn} where the ISBN goes", template)
	}
	return nil
}

// Cover implements ports.CoverSource.
func (s *Source) Cover(ctx context.Context, isbn string) ([]byte, error) {
	isbn = library.NormalizeISBN(isbn)
	if !library.ValidISBN(isbn) {
		return nil, errs.InvalidField("isbn", "must be a valid ISBN-10 or ISBN-13")
	}
	ctx, cancel := context.WithTimeout(ctx, DefaultTimeout)
	defer cancel()
	u := strings.ReplaceAll(s.template, "{isbn}", url.PathEscape(isbn))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, unavailable(u, "cannot be asked", err)
	}
	req.Header.Set("Accept", "image/jpeg, image/png;q=0.9, image/*;q=0.8")
	resp, err := s.http.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL stays out of the log
		}
		return nil, unavailable(u, "could not be reached", err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return nil, library.ErrCoverNotFound()
	case resp.StatusCode != http.StatusOK:
		return nil, unavailable(u, fmt.Sprintf("answered HTTP %d", resp.StatusCode), nil)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, library.MaxCoverBytes+1))
	if err != nil {
		return nil, unavailable(u, "broke off its answer", err)
	}
	if len(body) > library.MaxCoverBytes {
		return nil, library.ErrCoverTooLarge()
	}
	return body, nil
}

// unavailable is the error of a source that was refused, answered wrongly
// or not at all; the cause, with the host, is for the log only.
func unavailable(rawURL, what string, cause error) error {
	host := rawURL
	if u, err := url.Parse(rawURL); err == nil {
		host = u.Host
	}
	e := errs.E(errs.Unavailable, errs.CodeUnavailable, "The cover service could not be reached; try again later.")
	if cause == nil {
		cause = errors.New(what)
	} else {
		cause = fmt.Errorf("%s: %w", what, cause)
	}
	e.Err = fmt.Errorf("cover service %s: %w", host, cause)
	return e
}
