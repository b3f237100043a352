package types_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/jscrawl/jscrawl/types"
)

func TestRequestCookiesJSON(t *testing.T) {
	t.Parallel()
	in := types.Request{URL: "http://a.test/", Cookies: []types.Cookie{{Name: "a", Value: "1"}, {Name: "b", Value: "2", Domain: "a.test", Path: "/x"}}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"url":"http://a.test/","cookies":[{"name":"a","value":"1"},{"name":"b","value":"2","domain":"a.test","path":"/x"}]}`; string(b) != want {
		t.Errorf("JSON %s, want %s", b, want)
	}
	var out types.Request
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(out.Cookies, in.Cookies) {
		t.Errorf("round trip: %+v", out.Cookies)
	}
	c := in.Copy()
	c.Cookies[0].Value = "changed"
	if in.Cookies[0].Value != "1" {
		t.Error("Copy shares the cookies")
	}
}

func TestRedirectURLs(t *testing.T) {
	t.Parallel()
	r := types.Request{Meta: types.Item{{Key: "redirectUrls", Value: []any{"http://a/", "http://b/"}}}}
	if got := r.RedirectURLs(); !slices.Equal(got, []string{"http://a/", "http://b/"}) {
		t.Errorf("RedirectURLs = %v", got)
	}
	if got := (&types.Request{}).RedirectURLs(); got != nil {
		t.Errorf("no meta: %v", got)
	}
}

func TestStringSettingNull(t *testing.T) {
	t.Parallel()
	s := types.NewSettings()
	if s.Get(types.HTTPAuthDomain) != nil {
		t.Fatal("HTTP_AUTH_DOMAIN default is not null")
	}
	if err := s.Set(types.HTTPAuthDomain, "a.test", types.PrioritySpider); err != nil {
		t.Fatal(err)
	}
	if err := s.Set(types.HTTPAuthDomain, nil, types.PriorityCmdline); err != nil || s.Get(types.HTTPAuthDomain) != nil {
		t.Errorf("null: %v %v", err, s.Get(types.HTTPAuthDomain))
	}
	if err := s.Set(types.HTTPAuthDomain, 3, types.PriorityCmdline); err == nil {
		t.Error("a number is a string")
	}
}
