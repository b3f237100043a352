package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/engine/enginetest"
)

// TestS3FeedCLI runs the binary with s3:// feeds on a real S3 server (versitygw): the
// credentials from -s AWS_* or from the URI, batches as one object each, and neither the
// log nor the stats show the secret. A job (--jobdir) refuses an s3:// feed before it
// crawls, and a spider's FEEDS may not name one.
func TestS3FeedCLI(t *testing.T) {
	t.Parallel()
	srv := enginetest.StartS3(t, "feeds")
	spider := writeFile(t, t.TempDir(), "tiny.ts", tinySpider)
	aws := []string{"-s", "AWS_ENDPOINT_URL=" + srv.Endpoint, "-s", "AWS_REGION_NAME=us-east-1"}
	creds := []string{"-s", "AWS_ACCESS_KEY_ID=" + enginetest.S3AccessKey, "-s", "AWS_SECRET_ACCESS_KEY=" + enginetest.S3SecretKey}
	for _, tc := range []struct {
		name string
		args []string
		keys map[string]int // object key → items
	}{
		{"settings", append(append([]string{"-o", "s3://feeds/settings/items.jsonl"}, aws...), creds...),
			map[string]int{"settings/items.jsonl": 20}},
		{"uri credentials", append([]string{"-O", "s3://" + enginetest.S3AccessKey + ":" + enginetest.S3SecretKey + "@feeds/uri/items.csv"}, aws...),
			map[string]int{"uri/items.csv": 21}},
		{"batches", append(append([]string{"-s", `FEEDS={"s3://feeds/batch/%(batch_id)d.jsonl": {"batchItemCount": 8}}`}, aws...), creds...),
			map[string]int{"batch/1.jsonl": 8, "batch/2.jsonl": 8, "batch/3.jsonl": 4}},
		{"FEED_EXPORT_BATCH_ITEM_COUNT", append(append([]string{"-o", "s3://feeds/sbatch/%(batch_id)02d.jsonl", "-s", "FEED_EXPORT_BATCH_ITEM_COUNT=15"}, aws...), creds...),
			map[string]int{"sbatch/01.jsonl": 15, "sbatch/02.jsonl": 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, stderr, code := jscrawl(t, append([]string{"run", "--demo", spider}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit code %d\n%s", code, stderr)
			}
			if strings.Contains(stderr, enginetest.S3SecretKey) {
				t.Errorf("the log shows the secret:\n%s", stderr)
			}
			for key, n := range tc.keys {
				b, ok := srv.Object("feeds", key)
				if !ok {
					t.Fatalf("no object %s; keys %v\n%s", key, srv.Keys("feeds"), stderr)
				}
				if got := bytes.Count(b, []byte("\n")); got != n {
					t.Errorf("%s has %d lines, want %d", key, got, n)
				}
			}
		})
	}
	t.Run("jobdir with uri credentials", func(t *testing.T) {
		t.Parallel()
		jobdir := t.TempDir()
		args := append([]string{"run", "--demo", "--jobdir", jobdir, spider,
			"-o", "s3://" + enginetest.S3AccessKey + ":" + enginetest.S3SecretKey + "@feeds/joburi/items.jsonl"}, aws...)
		_, stderr, code := jscrawl(t, args...)
		if code != 0 {
			t.Fatalf("exit code %d\n%s", code, stderr)
		}
		if b, ok := srv.Object("feeds", "joburi/items.jsonl"); !ok || bytes.Count(b, []byte("\n")) != 20 {
			t.Errorf("object joburi/items.jsonl: %d lines (present %v), want 20", bytes.Count(b, []byte("\n")), ok)
		}
		status, _, _ := jscrawl(t, "job", jobdir, "--json")
		if strings.Contains(stderr+status, enginetest.S3SecretKey) || !strings.Contains(status, "s3://") {
			t.Errorf("the log or the job's status shows the secret, or no feed:\n%s\n%s", stderr, status)
		}
		_ = filepath.WalkDir(jobdir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if b, _ := os.ReadFile(path); bytes.Contains(b, []byte(enginetest.S3SecretKey)) {
					t.Errorf("%s holds the secret", path)
				}
			}
			return nil
		})
	})
	t.Run("jobdir refuses batch_time", func(t *testing.T) {
		t.Parallel()
		args := append(append([]string{"run", "--demo", "--jobdir", t.TempDir(), spider,
			"-s", `FEEDS={"s3://feeds/job/%(batch_time)s.jsonl": {"batchItemCount": 8}}`}, aws...), creds...)
		_, stderr, code := jscrawl(t, args...)
		if code != 2 || !strings.Contains(stderr, "need %(batch_id)d, not %(batch_time)s") {
			t.Errorf("exit code %d, want a refusal:\n%s", code, stderr)
		}
	})
}

// TestJobSurvivesKillsIntoS3: a --jobdir crawl of 2,000 pages into S3 batch objects of 150
// items (a real versitygw), SIGKILLed at random downloads at least 8 times and resumed each
// time with the same command, ends with every item in exactly one object; the job folder
// never holds the secret, nor the local files of the uploaded batches at the end.
func TestJobSurvivesKillsIntoS3(t *testing.T) {
	t.Parallel()
	const total = 2000
	srv := enginetest.StartS3(t, "feeds")
	site, dir, args := treeJob(t, total, "-s", `FEEDS={"s3://feeds/tree/%(batch_id)03d.jsonl": {"batchItemCount": 150}}`,
		"-s", "AWS_ENDPOINT_URL="+srv.Endpoint, "-s", "AWS_REGION_NAME=us-east-1",
		"-s", "AWS_ACCESS_KEY_ID="+enginetest.S3AccessKey, "-s", "AWS_SECRET_ACCESS_KEY="+enginetest.S3SecretKey)
	kills, _ := killThenFinish(t, site, dir, args, 10)
	if kills < 8 {
		t.Errorf("only %d kills happened", kills)
	}
	keys := srv.Keys("feeds")
	objects := make([][]byte, len(keys))
	for i, k := range keys {
		objects[i], _ = srv.Object("feeds", k)
	}
	batchesEachOnce(t, keys, objects, 150, total)
	// The local files of uploaded batches go once a commit names a later batch.
	if parts, _ := filepath.Glob(filepath.Join(dir, "job", "s3", "*.part")); len(parts) > 1 {
		t.Errorf("the job folder keeps %d batch files, want at most the last: %v", len(parts), parts)
	}
	_ = filepath.WalkDir(filepath.Join(dir, "job"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(path); bytes.Contains(b, []byte(enginetest.S3SecretKey)) {
				t.Errorf("%s holds the secret", path)
			}
		}
		return nil
	})
}
