package redisfrontier_test

import (
	"strings"
	"testing"
)

// TestSecretOpenErrors: the error of a URL that does not parse names the URL with its
// credentials masked (types.MaskURL), whether they are a password or a user name alone
// (which a Redis server may take as a token), and keeps the host.
func TestSecretOpenErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, url, secret string }{
		{"password", "redis://:pw-secret-1@127.0.0.1:notaport/0", "pw-secret-1"},
		{"user and password", "redis://app:pw-secret-2@127.0.0.1:notaport/0", "pw-secret-2"},
		{"user alone", "redis://tok-secret-3@127.0.0.1:notaport/0", "tok-secret-3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := openFails(t, tc.url)
			if strings.Contains(err.Error(), tc.secret) {
				t.Errorf("error %q shows the secret", err)
			}
			if !strings.Contains(err.Error(), "****@127.0.0.1") {
				t.Errorf("error %q does not show the masked URL", err)
			}
		})
	}
}
