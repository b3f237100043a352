package enginetest_test

import (
	"testing"

	"github.com/jscrawl/jscrawl/engine/enginetest"
)

func TestStartRedis(t *testing.T) {
	t.Parallel()
	for _, opts := range []enginetest.RedisOptions{{}, {AOF: true, Password: "s3cret"}} {
		r := enginetest.StartRedis(t, opts)
		if err := r.Ping(); err != nil {
			t.Fatalf("ping: %v", err)
		}
		r.Stop()
		if err := r.Ping(); err == nil {
			t.Fatal("ping answered after Stop")
		}
		r.Restart()
		if err := r.Ping(); err != nil {
			t.Fatalf("ping after Restart: %v", err)
		}
	}
}
