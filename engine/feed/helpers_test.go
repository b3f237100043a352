package feed_test

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/jscrawl/jscrawl/engine/feed"
)

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// openFeed opens the feed uri with cfg and env, and fails the test when it cannot.
func openFeed(t testing.TB, uri string, cfg feed.Config, env feed.Env) *feed.Feed {
	t.Helper()
	f, err := feed.Open(uri, cfg, env)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// stdoutEnv returns quietEnv with w for the standard output of "-" and stdout: feeds.
func stdoutEnv(w io.Writer) feed.Env {
	env := quietEnv
	env.Stdout = w
	return env
}

// tempFile returns the path of name in a new temporary folder, where it holds content
// (no file when content is "").
func tempFile(t testing.TB, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if content != "" {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// fileSize returns the size of the file path.
func fileSize(t testing.TB, path string) int64 {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.Size()
}
