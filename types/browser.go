package types

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// MetaBrowser is the meta key of the request option browser: true, or an object of
// BrowserOptions, renders the request in headless Chromium instead of downloading it
// with net/http.
const MetaBrowser = "browser"

// Values of BrowserOptions.WaitUntil.
const (
	WaitLoad             = "load"
	WaitDOMContentLoaded = "domcontentloaded"
	WaitNetworkIdle      = "networkidle"
)

// DefaultBlockResources are the resource types a browser request does not load unless
// its blockResources option says otherwise. Sorted, as ParseBrowserOptions sorts a list
// given, so that the default and the same list given are one fingerprint (and one
// request in a replayed archive).
var DefaultBlockResources = []string{"font", "image", "media"}

// BrowserOptions are a browser request's options, as meta.browser holds them. Timeout is
// in seconds (0: BROWSER_TIMEOUT).
type BrowserOptions struct {
	WaitUntil      string   `json:"waitUntil"`
	WaitFor        string   `json:"waitFor,omitempty"`
	Timeout        float64  `json:"timeout,omitempty"`
	BlockResources []string `json:"blockResources"`
	Screenshot     bool     `json:"screenshot,omitempty"`
	IncludePage    bool     `json:"includePage,omitempty"`
}

// resourceTypes are the resource types blockResources may name (the Chrome DevTools
// Protocol's Network.ResourceType, lower case).
var resourceTypes = []string{"document", "stylesheet", "image", "media", "font", "script", "texttrack",
	"xhr", "fetch", "prefetch", "eventsource", "websocket", "manifest", "signedexchange", "ping",
	"cspviolationreport", "preflight", "other"}

// Browser returns the request's browser options: ok is false for a plain request
// (meta.browser absent, null or false). err says what is wrong with a malformed option.
func (r *Request) Browser() (opts BrowserOptions, ok bool, err error) {
	v, present := r.Meta.Get(MetaBrowser)
	if !present {
		return opts, false, nil
	}
	return ParseBrowserOptions(v)
}

// ParseBrowserOptions reads the value of meta.browser: true, or an object with the keys
// waitUntil, waitFor, timeout, blockResources, screenshot and includePage. nil and false
// mean no browser.
func ParseBrowserOptions(v any) (opts BrowserOptions, ok bool, err error) {
	opts = BrowserOptions{WaitUntil: WaitLoad, BlockResources: DefaultBlockResources}
	var fields Item
	switch x := v.(type) {
	case nil:
		return opts, false, nil
	case bool:
		return opts, x, nil
	case Item:
		fields = x
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			fields = append(fields, Field{k, x[k]})
		}
	default:
		return opts, false, fmt.Errorf("browser option: want true or an object, got %T", v)
	}
	for _, f := range fields {
		switch f.Key {
		case "waitUntil":
			s, _ := f.Value.(string)
			switch s {
			case WaitLoad, WaitDOMContentLoaded, WaitNetworkIdle:
				opts.WaitUntil = s
			default:
				return opts, false, fmt.Errorf("browser option waitUntil: want %q, %q or %q, got %v", WaitLoad, WaitDOMContentLoaded, WaitNetworkIdle, f.Value)
			}
		case "waitFor":
			if f.Value == nil {
				continue
			}
			s, isStr := f.Value.(string)
			if !isStr {
				return opts, false, fmt.Errorf("browser option waitFor: want a CSS selector, got %T", f.Value)
			}
			opts.WaitFor = s
		case "timeout":
			switch n := f.Value.(type) {
			case nil:
			case float64:
				opts.Timeout = n
			case int64:
				opts.Timeout = float64(n)
			case int:
				opts.Timeout = float64(n)
			default:
				return opts, false, fmt.Errorf("browser option timeout: want seconds, got %T", f.Value)
			}
			if opts.Timeout < 0 {
				return opts, false, fmt.Errorf("browser option timeout: want seconds >= 0, got %v", opts.Timeout)
			}
		case "blockResources":
			if f.Value == nil {
				continue
			}
			list, isList := f.Value.([]any)
			if !isList {
				if sl, isStrs := f.Value.([]string); isStrs {
					for _, s := range sl {
						list = append(list, s)
					}
				} else {
					return opts, false, fmt.Errorf("browser option blockResources: want a list of resource types, got %T", f.Value)
				}
			}
			opts.BlockResources = []string{}
			for _, e := range list {
				s, _ := e.(string)
				s = strings.ToLower(s)
				if !slices.Contains(resourceTypes, s) {
					return opts, false, fmt.Errorf("browser option blockResources: unknown resource type %v (known: %s)", e, strings.Join(resourceTypes, ", "))
				}
				if !slices.Contains(opts.BlockResources, s) {
					opts.BlockResources = append(opts.BlockResources, s)
				}
			}
			slices.Sort(opts.BlockResources)
		case "screenshot":
			b, _ := f.Value.(bool)
			opts.Screenshot = b
		case "includePage":
			b, _ := f.Value.(bool)
			opts.IncludePage = b
		default:
			return opts, false, fmt.Errorf("browser option: unknown key %q (known: waitUntil, waitFor, timeout, blockResources, screenshot, includePage)", f.Key)
		}
	}
	return opts, true, nil
}

// browserFingerprint returns what a browser request adds to its fingerprint: its
// options in one canonical form (browser: true and browser: {} are the same request),
// or nil for a plain request.
func (r *Request) browserFingerprint() []byte {
	opts, ok, err := r.Browser()
	if err != nil {
		v, _ := r.Meta.Get(MetaBrowser)
		b, _ := json.Marshal(v)
		return append([]byte("browser!"), b...)
	}
	if !ok {
		return nil
	}
	b, _ := json.Marshal(opts)
	return append([]byte("browser"), b...)
}

// Page is a browser page kept open after its response was read (the browser option
// includePage), for the callback to drive. Times are in milliseconds' Go form; selectors
// are CSS. It is safe for use from one goroutine at a time, and Close from any.
type Page interface {
	// URL returns the page's current URL.
	URL() string
	// Click clicks the first element css matches.
	Click(ctx context.Context, css string) error
	// Fill types text into the first field css matches, replacing its value.
	Fill(ctx context.Context, css, text string) error
	// WaitForSelector waits until css matches an element, at most timeout (0: the page's
	// load timeout).
	WaitForSelector(ctx context.Context, css string, timeout time.Duration) error
	// Scroll scrolls to the bottom up to times times, waiting delay between, and stops
	// early when the page stops growing.
	Scroll(ctx context.Context, times int, delay time.Duration) error
	// Evaluate runs the function whose source is given in the page with args (JSON
	// values) and returns its result as JSON.
	Evaluate(ctx context.Context, source string, args []byte) ([]byte, error)
	// Content returns the current DOM as HTML.
	Content(ctx context.Context) (string, error)
	// Screenshot captures the viewport as a PNG.
	Screenshot(ctx context.Context) ([]byte, error)
	// Goto loads rawURL in the page as the request's waitUntil says.
	Goto(ctx context.Context, rawURL string) error
	// Response returns a Response over the current DOM.
	Response(ctx context.Context) (*Response, error)
	// Close closes the page; later calls do nothing.
	Close() error
}
