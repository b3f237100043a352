package feed_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/engine/feed"
	"github.com/jscrawl/jscrawl/types"
)

// s3Env is the Env of a feed on srv with the root credentials.
func s3Env(srv *enginetest.S3, logger *slog.Logger) feed.Env {
	return feed.Env{SpiderName: "quotes", Logger: logger, S3: feed.S3Options{
		AccessKeyID: enginetest.S3AccessKey, SecretAccessKey: enginetest.S3SecretKey, EndpointURL: srv.Endpoint, Region: "us-east-1"}}
}

func s3Items(n int) []types.Item {
	items := make([]types.Item, n)
	for i := range items {
		items[i] = types.Item{{Key: "i", Value: i}, {Key: "text", Value: fmt.Sprintf("quote %d, \"quoted\" <b>", i)}}
	}
	return items
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestS3Formats uploads each format to a real S3 server and compares the object with the
// file a file feed writes from the same items.
func TestS3Formats(t *testing.T) {
	t.Parallel()
	srv := enginetest.StartS3(t, "feeds")
	for _, key := range []string{"items.jsonl", "out/items.csv", "items.json", "items.xml", "items.jsonl.gz", "empty.json"} {
		t.Run(key, func(t *testing.T) {
			t.Parallel()
			items := s3Items(3)
			if strings.HasPrefix(key, "empty") {
				items = nil
			}
			var logs bytes.Buffer
			writeFeed(t, "s3://feeds/"+key, feed.Config{}, s3Env(srv, slog.New(slog.NewTextHandler(&logs, nil))), items...)
			local := filepath.Join(t.TempDir(), filepath.Base(key))
			writeFeed(t, local, feed.Config{}, feed.Env{SpiderName: "quotes"}, items...)
			got, ok := srv.Object("feeds", key)
			if !ok {
				t.Fatalf("no object %s; keys %v", key, srv.Keys("feeds"))
			}
			want, err := os.ReadFile(local)
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(key, ".gz") {
				got, want = gunzip(t, got), gunzip(t, want)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("object %s:\n%s\nwant the file feed's:\n%s", key, got, want)
			}
			if !strings.Contains(logs.String(), "uri=s3://feeds/"+key) {
				t.Errorf("no stored feed line for s3://feeds/%s: %s", key, logs.String())
			}
		})
	}
}

// TestS3Multipart uploads a feed of three parts (5 MiB each but the last): the object is
// all of it.
func TestS3Multipart(t *testing.T) {
	t.Parallel()
	srv := enginetest.StartS3(t, "feeds")
	items := make([]types.Item, 1200)
	pad := strings.Repeat("x", 10<<10)
	for i := range items {
		items[i] = types.Item{{Key: "i", Value: i}, {Key: "pad", Value: pad}}
	}
	writeFeed(t, "s3://feeds/big.jsonl", feed.Config{}, s3Env(srv, nil), items...)
	got, ok := srv.Object("feeds", "big.jsonl")
	if !ok {
		t.Fatal("no object")
	}
	if lines := bytes.Count(got, []byte("\n")); lines != len(items) || len(got) < 10<<20 {
		t.Fatalf("object has %d bytes, %d lines, want %d lines over 10 MiB", len(got), lines, len(items))
	}
}

// TestS3Batches writes one object per batch, each whole.
func TestS3Batches(t *testing.T) {
	t.Parallel()
	srv := enginetest.StartS3(t, "feeds")
	writeFeed(t, "s3://feeds/%(name)s/%(batch_id)02d.jsonl", feed.Config{BatchItemCount: 2}, s3Env(srv, nil), s3Items(5)...)
	keys := srv.Keys("feeds")
	if want := []string{"quotes/01.jsonl", "quotes/02.jsonl", "quotes/03.jsonl"}; !slices.Equal(keys, want) {
		t.Fatalf("keys %v, want %v", keys, want)
	}
	for i, k := range keys {
		b, _ := srv.Object("feeds", k)
		if n := bytes.Count(b, []byte("\n")); n != min(2, 5-2*i) {
			t.Errorf("%s has %d items:\n%s", k, n, b)
		}
	}
}

// TestS3Credentials: credentials from the URI, the AWS environment variables, and wrong
// ones, which fail when the feed opens with an error naming the bucket but not the secret.
func TestS3Credentials(t *testing.T) {
	srv := enginetest.StartS3(t, "feeds")
	t.Run("uri", func(t *testing.T) {
		var logs bytes.Buffer
		env := feed.Env{Logger: slog.New(slog.NewTextHandler(&logs, nil)), S3: feed.S3Options{EndpointURL: srv.Endpoint, Region: "us-east-1"}}
		uri := fmt.Sprintf("s3://%s:%s@feeds/uri.jsonl", enginetest.S3AccessKey, enginetest.S3SecretKey)
		f := openFeed(t, uri, feed.Config{}, env)
		if strings.Contains(f.URI(), enginetest.S3SecretKey) {
			t.Errorf("URI() = %s shows the secret", f.URI())
		}
		if err := f.Export(s3Items(1)[0]); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		if _, ok := srv.Object("feeds", "uri.jsonl"); !ok {
			t.Error("no object")
		}
		if strings.Contains(logs.String(), enginetest.S3SecretKey) {
			t.Errorf("the log shows the secret: %s", logs.String())
		}
	})
	t.Run("environment", func(t *testing.T) {
		t.Setenv("AWS_ACCESS_KEY_ID", enginetest.S3AccessKey)
		t.Setenv("AWS_SECRET_ACCESS_KEY", enginetest.S3SecretKey)
		t.Setenv("AWS_ENDPOINT_URL_S3", srv.Endpoint) // an IP: path-style, or the bucket would be a host name
		t.Setenv("AWS_REGION", "us-east-1")
		writeFeed(t, "s3://feeds/env.csv", feed.Config{}, feed.Env{}, s3Items(2)...)
		if _, ok := srv.Object("feeds", "env.csv"); !ok {
			t.Error("no object")
		}
	})
	for _, tc := range []struct{ name, uri, secret, want string }{
		{"wrong secret", "s3://feeds/bad.jsonl", "not-the-secret", "s3 bucket feeds refused the credentials"},
		{"wrong secret in uri", "s3://" + enginetest.S3AccessKey + ":not-the-secret@feeds/bad.jsonl", "", "s3 bucket feeds refused the credentials"},
		{"no bucket", "s3://nobucket/bad.jsonl", enginetest.S3SecretKey, "s3 bucket nobucket does not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := s3Env(srv, nil)
			env.S3.SecretAccessKey = tc.secret
			_, err := feed.Open(tc.uri, feed.Config{}, env)
			if err == nil {
				t.Fatal("Open succeeded")
			}
			if !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "not-the-secret") {
				t.Errorf("error %q, want it to contain %q and not the secret", err, tc.want)
			}
			t.Log(err)
		})
	}
	if keys := srv.Keys("feeds"); slices.Contains(keys, "bad.jsonl") {
		t.Errorf("keys %v", keys)
	}
}

func TestS3RefusedInJob(t *testing.T) {
	t.Parallel()
	_, err := feed.OpenAll(map[string]feed.Config{"s3://feeds/x.jsonl": {}}, feed.Env{Job: true})
	if err == nil || !strings.Contains(err.Error(), feed.ErrS3Job.Error()) {
		t.Fatalf("err %v, want %v", err, feed.ErrS3Job)
	}
}

// TestS3JobBatches: an S3 batch feed in a job, killed after its commit with items in later
// batches, then resumed at the committed position, ends with every item in exactly one
// batch object; the local file of the uploaded batches goes when it resumes.
func TestS3JobBatches(t *testing.T) {
	t.Parallel()
	srv := enginetest.StartS3(t, "feeds")
	const uri = "s3://feeds/job/%(batch_id)d.jsonl"
	cfgs := map[string]feed.Config{uri: {BatchItemCount: 3}}
	env := s3Env(srv, nil)
	env.Job, env.JobDir = true, t.TempDir()
	items := s3Items(10)
	export := func(f *feed.Feed, from, to int) {
		t.Helper()
		for _, it := range items[from:to] {
			if err := f.Export(it); err != nil {
				t.Fatal(err)
			}
		}
	}
	fs, err := feed.OpenAll(cfgs, env)
	if err != nil {
		t.Fatal(err)
	}
	export(fs[0], 0, 5)
	pos, err := fs[0].Sync()
	if err != nil {
		t.Fatal(err)
	}
	if pos.Batch != 2 || pos.Items != 5 {
		t.Fatalf("position %+v, want batch 2 after 5 items", pos)
	}
	export(fs[0], 5, 9) // uploads batch 2 whole, with item 5 the job has not committed
	feed.Crash(fs[0])
	fs, err = feed.ResumeAll(cfgs, env, map[string]feed.Position{uri: pos})
	if err != nil {
		t.Fatal(err)
	}
	export(fs[0], 5, 10)
	if err := fs[0].Close(); err != nil {
		t.Fatal(err)
	}
	keys := srv.Keys("feeds")
	if want := []string{"job/1.jsonl", "job/2.jsonl", "job/3.jsonl", "job/4.jsonl"}; !slices.Equal(keys, want) {
		t.Fatalf("keys %v, want %v", keys, want)
	}
	seen := map[float64]int{}
	for _, k := range keys {
		b, _ := srv.Object("feeds", k)
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var v map[string]any
			if err := jsonUnmarshal([]byte(line), &v); err != nil {
				t.Fatalf("%s: %v", k, err)
			}
			seen[v["i"].(float64)]++
		}
	}
	for i := range 10 {
		if seen[float64(i)] != 1 {
			t.Errorf("item %d is in %d objects", i, seen[float64(i)])
		}
	}
	left, _ := filepath.Glob(filepath.Join(env.JobDir, "s3", "*-1.part"))
	if len(left) != 0 {
		t.Errorf("the uploaded batch's local file is left: %v", left)
	}
}
