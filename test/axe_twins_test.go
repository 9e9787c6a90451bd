package test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/readinglibrary/service/core/i18n"
)

// Every page state the browser tests reach is checked in each of the web
// app's languages, not only the one the test reads: a translation changes
// the names, the lengths and the direction axe judges. When a state has
// been checked, a second tab of the same browser context (the same
// session) asks the service for the same document again in each other
// language (an Accept-Language of its own) and checks what it gets:
//   - a page loaded by GET is loaded again, with the flash message it
//     showed (the message a form's redirect left in its cookie, said in
//     the language of the page that sent the form); a page the desk's
//     service worker fetched comes without it, as the worker's requests
//     are not the tab's;
//   - a form sent back refused (4xx) is sent again, with the same fields
//     and files: a refused form changes nothing, so sending it again
//     changes nothing either.
//
// A form answered 2xx without a redirect is not sent again, as a second
// sending could do its work twice; nor is a page the service worker
// answered from its cache while the service was down (the offline desk).
// A state a page's script made (the desk's student summary) is checked as
// the page loads in the other languages. The states left are counted, and
// TestMain reports them.

// flashCookieName is the web app's cookie of the message for the next page.
const flashCookieName = "sb-flash"

// axeDoc is what the tab asked for its document: the request a twin repeats.
type axeDoc struct {
	requestID   network.RequestID
	method, url string
	contentType string
	body        []byte
	bodyMissing bool   // the browser did not keep the body (too long)
	flash       string // the flash cookie the request carried
	status      int64
	fromWorker  bool // the service worker answered it (the desk's pages)
}

// axeTwinState is, per tab, its last document and its twin tab.
type axeTwinState struct {
	mu   sync.Mutex
	doc  axeDoc
	twin context.Context
}

var axeTwins struct {
	mu     sync.Mutex
	tabs   map[target.ID]*axeTwinState
	twins  map[target.ID]bool // twin tabs themselves, which record nothing
	states int                // twins checked (new states)
	missed map[string]int     // why a state had no twin, with how often
}

// axeRecordDocuments makes the tab of ctx remember the request of each
// document it loads, for its twins. Called when the tab opens.
func axeRecordDocuments(ctx context.Context) {
	c := chromedp.FromContext(ctx)
	if c == nil || c.Target == nil || !axeRuns() {
		return
	}
	st := &axeTwinState{}
	axeTwins.mu.Lock()
	if axeTwins.tabs == nil {
		axeTwins.tabs, axeTwins.twins, axeTwins.missed = map[target.ID]*axeTwinState{}, map[target.ID]bool{}, map[string]int{}
	}
	axeTwins.tabs[c.Target.TargetID] = st
	axeTwins.mu.Unlock()
	mainFrame := cdp.FrameID(c.Target.TargetID)
	_ = chromedp.Listen(ctx, func(ev any) {
		st.mu.Lock()
		defer st.mu.Unlock()
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			if e.Type != network.ResourceTypeDocument || e.FrameID != mainFrame || e.Request == nil {
				return
			}
			// A redirect's next request keeps the request id: it
			// replaces the one redirected, keeping the cookie seen.
			doc := axeDoc{requestID: e.RequestID, method: e.Request.Method, url: e.Request.URL}
			if e.RequestID == st.doc.requestID {
				doc.flash = st.doc.flash
			}
			for k, v := range e.Request.Headers {
				if strings.EqualFold(k, "Content-Type") {
					doc.contentType, _ = v.(string)
				}
			}
			if e.Request.HasPostData {
				for _, p := range e.Request.PostDataEntries {
					doc.body = append(doc.body, p.Bytes...)
				}
				doc.bodyMissing = len(e.Request.PostDataEntries) == 0
			}
			st.doc = doc
		case *network.EventRequestWillBeSentExtraInfo:
			if e.RequestID != st.doc.requestID {
				return
			}
			for _, ac := range e.AssociatedCookies {
				if ac.Cookie != nil && ac.Cookie.Name == flashCookieName && len(ac.BlockedReasons) == 0 {
					st.doc.flash = ac.Cookie.Value
				}
			}
		case *network.EventResponseReceivedExtraInfo:
			// A form's redirect sets the flash; the page it leads to may
			// come from the service worker, whose requests the tab does
			// not see.
			if e.RequestID != st.doc.requestID {
				return
			}
			for k, v := range e.Headers {
				lines, _ := v.(string)
				if !strings.EqualFold(k, "Set-Cookie") {
					continue
				}
				for _, line := range strings.Split(lines, "\n") {
					if c, err := http.ParseSetCookie(line); err == nil && c.Name == flashCookieName && c.Value != "" {
						st.doc.flash = c.Value
					}
				}
			}
		case *network.EventResponseReceived:
			if e.RequestID == st.doc.requestID && e.Response != nil {
				st.doc.status, st.doc.fromWorker = e.Response.Status, e.Response.FromServiceWorker
			}
		}
	})
}

// axeCheckTwins checks the state the tab of ctx shows (at url, in lang) in
// each other language.
func axeCheckTwins(t *testing.T, ctx context.Context, step, shownURL, lang string) {
	t.Helper()
	c := chromedp.FromContext(ctx)
	if c == nil || c.Target == nil {
		return
	}
	axeTwins.mu.Lock()
	st := axeTwins.tabs[c.Target.TargetID]
	axeTwins.mu.Unlock()
	if st == nil {
		return // a twin, or a tab opened before recording
	}
	st.mu.Lock()
	doc := st.doc
	st.mu.Unlock()
	switch {
	case doc.url == "" || stripFragment(doc.url) != stripFragment(shownURL):
		axeTwinMissed("the page's script changed the address")
		return
	case doc.method == "POST" && doc.status < 400 && !strings.HasSuffix(urlPath(doc.url), "/check"):
		// A check (".../check") is a sync's dry run, which changes
		// nothing: it is sent again like a refused form.
		axeTwinMissed("a form answered without a redirect, at " + urlPath(doc.url))
		return
	case doc.method == "POST" && doc.bodyMissing:
		axeTwinMissed("the browser kept no body of the form")
		return
	case doc.method != "GET" && doc.method != "POST":
		axeTwinMissed("a " + doc.method + " request")
		return
	}
	var form string
	if doc.method == "POST" {
		var err error
		if form, err = axeTwinForm(doc); err != nil {
			axeTwinMissed("a form the check cannot send again: " + err.Error())
			return
		}
	}
	// The twin shows the page at the size the tab does (the reflow test's
	// 320 px): layout decides some rules (target size, reflow).
	view, err := chromedp.Run(ctx, chromedp.Evaluate[[3]float64](`[window.innerWidth, window.innerHeight, window.devicePixelRatio]`))
	if err != nil {
		t.Errorf("accessibility check in the other languages after %q: the tab's size: %v", step, err)
		return
	}
	twin, err := axeTwinTab(ctx, st)
	if err != nil {
		t.Errorf("accessibility check in the other languages after %q: open a second tab: %v", step, err)
		return
	}
	for _, l := range i18n.Langs() {
		if string(l) == lang {
			continue
		}
		tc, cancel := context.WithTimeout(twin, time.Minute)
		err := chromedp.Do(tc, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
				Width: int64(view[0]), Height: int64(view[1]), DeviceScaleFactor: view[2]})
			return err
		}))
		if err == nil {
			err = axeLoadTwin(tc, doc, form, l)
		}
		if err != nil && doc.fromWorker {
			// The worker answered from its cache because the service is
			// down (the offline desk's tests): the twin, which asks the
			// service itself, has no page.
			cancel()
			axeTwinMissed("the service worker answered while the service was down")
			break
		}
		if err != nil {
			cancel()
			t.Errorf("accessibility check in %s after %q: load %s again: %v", l, step, doc.url, err)
			continue
		}
		got, _ := chromedp.Run(tc, chromedp.Evaluate[string](`document.documentElement.lang`))
		if got != string(l) {
			// The person or the school chose a language, which comes
			// before the browser's: this state is checked in it.
			cancel()
			continue
		}
		if axeCheckState(t, twin, step+" ("+string(l)+")") {
			axeTwins.mu.Lock()
			axeTwins.states++
			axeTwins.mu.Unlock()
		}
		cancel()
	}
	// The twin leaves the page, whose script would otherwise go on
	// working beside the test's tab (the offline desk sending its scans).
	c2, cancel := context.WithTimeout(twin, 10*time.Second)
	defer cancel()
	_ = chromedp.Do(c2, chromedp.Navigate("about:blank"))
}

func urlPath(u string) string {
	if p, err := url.Parse(u); err == nil {
		return p.Path
	}
	return u
}

func stripFragment(u string) string {
	u, _, _ = strings.Cut(u, "#")
	return u
}

func axeTwinMissed(why string) {
	axeTwins.mu.Lock()
	axeTwins.missed[why]++
	axeTwins.mu.Unlock()
}

// axeTwinTab is the tab's twin: a second tab of its browser context,
// opened once. It bypasses the service worker, which could answer a page
// from its cache in the language it was cached in.
func axeTwinTab(ctx context.Context, st *axeTwinState) (context.Context, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.twin != nil && st.twin.Err() == nil {
		return st.twin, nil
	}
	twin, _ := chromedp.NewContext(ctx) // closed with its tab
	if err := chromedp.Do(twin, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, network.SetBypassServiceWorker, network.SetBypassServiceWorkerParams{Bypass: true})
		return err
	})); err != nil {
		return nil, err
	}
	st.twin = twin
	return twin, nil
}

// axeLoadTwin makes the twin ask for doc in language l.
func axeLoadTwin(ctx context.Context, doc axeDoc, form string, l i18n.Lang) error {
	setup := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tg, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: network.Headers{"Accept-Language": string(l)}}); err != nil {
			return err
		}
		if doc.flash == "" {
			return nil
		}
		yes := true
		_, err := cdp.Call(ctx, tg, network.SetCookie, network.SetCookieParams{Name: flashCookieName, Value: doc.flash, URL: doc.url, Path: "/library/", HTTPOnly: &yes, SameSite: network.CookieSameSiteLax})
		return err
	})
	if doc.method == "GET" {
		return chromedp.Do(ctx, setup, chromedp.Navigate(doc.url))
	}
	// A page of the service's origin sends the form, so that it carries
	// the origin and the session as the test's own sending did.
	u, err := url.Parse(doc.url)
	if err != nil {
		return err
	}
	return chromedp.Do(ctx, setup, chromedp.Navigate(u.Scheme+"://"+u.Host+"/readyz"),
		loads(chromedp.Evaluate[chromedp.Void](`(`+axeSendFormJS+`)(`+form+`)`)))
}

// axeTwinField is one field of a form sent again: a value, or a file.
type axeTwinField struct {
	Name     string `json:"name"`
	Value    string `json:"value"`
	File     bool   `json:"file"`
	FileName string `json:"fileName,omitempty"`
	Type     string `json:"type,omitempty"`
	Bytes    []byte `json:"bytes,omitempty"` // base64 in JSON
}

// axeTwinForm is doc's form as the JSON axeSendFormJS takes.
func axeTwinForm(doc axeDoc) (string, error) {
	mediaType, params, err := mime.ParseMediaType(doc.contentType)
	if err != nil {
		return "", fmt.Errorf("form of type %q: %w", doc.contentType, err)
	}
	var fields []axeTwinField
	switch mediaType {
	case "application/x-www-form-urlencoded":
		q, err := url.ParseQuery(string(doc.body))
		if err != nil {
			return "", err
		}
		names := make([]string, 0, len(q))
		for k := range q {
			names = append(names, k)
		}
		slices.Sort(names)
		for _, k := range names {
			for _, v := range q[k] {
				fields = append(fields, axeTwinField{Name: k, Value: v})
			}
		}
	case "multipart/form-data":
		mr := multipart.NewReader(bytes.NewReader(doc.body), params["boundary"])
		for {
			p, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				return "", err
			}
			b, err := io.ReadAll(p)
			if err != nil {
				return "", err
			}
			if p.FileName() != "" {
				fields = append(fields, axeTwinField{Name: p.FormName(), File: true, FileName: p.FileName(), Type: p.Header.Get("Content-Type"), Bytes: b})
			} else {
				fields = append(fields, axeTwinField{Name: p.FormName(), Value: string(b)})
			}
		}
	default:
		return "", fmt.Errorf("a form of type %q", mediaType)
	}
	b, err := json.Marshal(map[string]any{"action": doc.url, "enctype": mediaType, "fields": fields})
	return string(b), err
}

// axeSendFormJS builds the form in the page and sends it.
const axeSendFormJS = `(f) => {
  const form = document.createElement("form");
  form.method = "post"; form.action = f.action; form.enctype = f.enctype;
  for (const x of f.fields || []) {
    const input = document.createElement("input");
    input.name = x.name;
    if (x.file) {
      input.type = "file";
      const bin = atob(x.bytes || "");
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], x.fileName, {type: x.type || "application/octet-stream"}));
      input.files = dt.files;
    } else {
      input.type = "hidden"; input.value = x.value;
    }
    form.appendChild(input);
  }
  (document.body || document.documentElement).appendChild(form);
  form.submit();
}`

// axeTwinSummary is TestMain's line about the twins.
func axeTwinSummary() string {
	axeTwins.mu.Lock()
	defer axeTwins.mu.Unlock()
	var missed []string
	for why, n := range axeTwins.missed {
		missed = append(missed, fmt.Sprintf("%d: %s", n, why))
	}
	slices.Sort(missed)
	s := fmt.Sprintf("accessibility: %d of those states were the same pages in another language", axeTwins.states)
	if len(missed) > 0 {
		s += "; states not asked for again in the other languages (" + strings.Join(missed, "; ") + ")"
	}
	return s
}
