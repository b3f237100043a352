package warc

import (
	"net/http"
	"reflect"
	"testing"
)

// TestSecretRedactCredentials: a request record keeps only the scheme of Authorization and
// Proxy-Authorization, whatever the case of their names, and masks other credential
// headers (X-Api-Key); the header given is not changed, and a header without them is
// returned as it is.
func TestSecretRedactCredentials(t *testing.T) {
	t.Parallel()
	in := http.Header{
		"Authorization":       {"Basic YWxpY2U6aHVudGVyMg=="},
		"Proxy-Authorization": {"Bearer tok"},
		"proxy-authorization": {"opaque-secret"},
		"X-Api-Key":           {"k1", "k2"},
		"Accept":              {"text/html"},
	}
	got := redactCredentials(in)
	want := http.Header{
		"Authorization":       {"Basic ****"},
		"Proxy-Authorization": {"Bearer ****"},
		"proxy-authorization": {"****"},
		"X-Api-Key":           {"****", "****"},
		"Accept":              {"text/html"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("redactCredentials = %v, want %v", got, want)
	}
	if in.Get("Authorization") != "Basic YWxpY2U6aHVudGVyMg==" {
		t.Error("the header given was changed")
	}
	plain := http.Header{"Accept": {"*/*"}}
	if got := redactCredentials(plain); !reflect.DeepEqual(got, plain) {
		t.Errorf("redactCredentials of a header without credentials = %v", got)
	}
}
