package engine

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/jscrawl/jscrawl/types"
)

// referrerPolicies are the policies RefererMiddleware knows (W3C Referrer Policy, plus
// Scrapy's default).
var referrerPolicies = map[string]bool{
	"scrapy-default": true, "no-referrer": true, "no-referrer-when-downgrade": true,
	"same-origin": true, "origin": true, "strict-origin": true, "origin-when-cross-origin": true,
	"strict-origin-when-cross-origin": true, "unsafe-url": true,
}

// RefererMiddleware sets the Referer header of requests that a callback produced, unless
// already set, from the response's URL as the referrer policy allows (Scrapy:
// RefererMiddleware). The policy is the request's meta.referrerPolicy, else the response's
// Referrer-Policy header, else REFERRER_POLICY. Policies: no-referrer,
// no-referrer-when-downgrade, same-origin, origin, strict-origin, origin-when-cross-origin,
// strict-origin-when-cross-origin, unsafe-url, and scrapy-default (the default:
// no-referrer-when-downgrade, and none from pages that are not http or https). The referrer
// never carries user info or a fragment. REFERER_ENABLED false turns it off. Called on the
// engine goroutine only; where nothing could tell the difference the engine calls it after
// the duplicate filter, on the requests that are scheduled (see Engine.route).
type RefererMiddleware struct {
	enabled bool
	policy  string
}

// NewRefererMiddleware returns a RefererMiddleware configured from settings; an unknown
// REFERRER_POLICY is a warning and scrapy-default applies.
func NewRefererMiddleware(settings *types.Settings, logger *slog.Logger) *RefererMiddleware {
	p := strings.ToLower(strings.TrimSpace(settings.String(types.ReferrerPolicy)))
	if p == "" {
		p = "scrapy-default"
	}
	if !referrerPolicies[p] {
		orDiscard(logger).Warn(fmt.Sprintf("%s: unknown referrer policy %q, using scrapy-default", types.ReferrerPolicy, p))
		p = "scrapy-default"
	}
	return &RefererMiddleware{enabled: settings.Bool(types.RefererEnabled), policy: p}
}

// ProcessSpiderOutput implements SpiderOutputFilter.
func (m *RefererMiddleware) ProcessSpiderOutput(_ context.Context, resp *types.Response, out types.Output) (types.Output, bool) {
	if !m.enabled || out.Request == nil || resp == nil || resp.URL == "" {
		return out, true
	}
	if _, ok := out.Request.Headers["Referer"]; ok {
		return out, true
	}
	if ref := Referrer(m.policyOf(out.Request, resp.Headers), resp.URL, out.Request.URL); ref != "" {
		if out.Request.Headers == nil {
			out.Request.Headers = http.Header{}
		}
		out.Request.Headers["Referer"] = []string{ref}
	}
	return out, true
}

// policyOf returns the policy for req: its meta.referrerPolicy, else the last known one
// of the Referrer-Policy header h of the page it comes from, else REFERRER_POLICY.
func (m *RefererMiddleware) policyOf(req *types.Request, h http.Header) string {
	if p, ok := req.MetaValue(types.MetaReferrerPolicy).(string); ok && referrerPolicies[strings.ToLower(p)] {
		return strings.ToLower(p)
	}
	if p := headerPolicy(h); p != "" {
		return p
	}
	return m.policy
}

// headerPolicy returns the last policy of a Referrer-Policy header that is known.
func headerPolicy(h http.Header) string {
	var p string
	for _, v := range h.Values("Referrer-Policy") {
		for _, t := range strings.Split(v, ",") {
			if t = strings.ToLower(strings.TrimSpace(t)); referrerPolicies[t] {
				p = t
			}
		}
	}
	return p
}

// Referrer returns the Referer value for a request to target made from a page at source
// under policy ("" for none). An unknown policy is scrapy-default.
func Referrer(policy, source, target string) string {
	if r, ok := referrerFast(policy, source, target); ok {
		return r
	}
	s, err := url.Parse(source)
	if err != nil {
		return ""
	}
	t, err := url.Parse(target)
	if err != nil {
		return ""
	}
	if s.Scheme != "http" && s.Scheme != "https" {
		return "" // file:, data:, ... never leak
	}
	full := *s
	full.User, full.Fragment, full.RawFragment = nil, "", ""
	origin := url.URL{Scheme: s.Scheme, Host: s.Host, Path: "/"}
	sameOrigin := strings.EqualFold(s.Scheme, t.Scheme) && strings.EqualFold(s.Host, t.Host)
	downgrade := s.Scheme == "https" && t.Scheme != "https"
	switch policy {
	case "no-referrer":
		return ""
	case "same-origin":
		if sameOrigin {
			return full.String()
		}
		return ""
	case "origin":
		return origin.String()
	case "strict-origin":
		if downgrade {
			return ""
		}
		return origin.String()
	case "origin-when-cross-origin":
		if sameOrigin {
			return full.String()
		}
		return origin.String()
	case "strict-origin-when-cross-origin":
		switch {
		case sameOrigin:
			return full.String()
		case downgrade:
			return ""
		}
		return origin.String()
	case "unsafe-url":
		return full.String()
	}
	// no-referrer-when-downgrade, scrapy-default
	if downgrade {
		return ""
	}
	return full.String()
}

// referrerFast answers the default policy (no-referrer-when-downgrade) without parsing
// either URL, for the common case of an http(s) source with no fragment and no user info
// (the engine's response URLs are already normalized): the source itself, or nothing on a
// downgrade from https. ok is false when the full rules are needed.
func referrerFast(policy, source, target string) (string, bool) {
	if policy != "" && policy != "scrapy-default" && policy != "no-referrer-when-downgrade" {
		return "", false
	}
	var secure bool
	switch {
	case strings.HasPrefix(source, "https://"):
		secure = true
	case strings.HasPrefix(source, "http://"):
	default:
		return "", false
	}
	if strings.ContainsAny(source, "#@") {
		return "", false
	}
	if secure && !hasPrefixFold(target, "https:") {
		return "", true // a downgrade (or another scheme): no Referer
	}
	return source, true
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// Interface guards
var _ SpiderOutputFilter = (*RefererMiddleware)(nil)
