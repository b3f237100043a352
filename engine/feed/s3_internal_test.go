package feed

import (
	"context"
	"testing"
)

func TestS3PathStyle(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		endpoint string
		want     bool
	}{
		{"http://127.0.0.1:9000", true},
		{"http://[::1]:9000", true},
		{"https://10.1.2.3", true},
		{"https://minio.example.com", false},
		{"", false},
	} {
		t.Run(tc.endpoint, func(t *testing.T) {
			t.Parallel()
			c, err := newS3Client(context.Background(), S3Options{EndpointURL: tc.endpoint, Region: "us-east-1", AccessKeyID: "a", SecretAccessKey: "b"})
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Options().UsePathStyle; got != tc.want {
				t.Errorf("UsePathStyle = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestParseS3(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		uri, bucket, key, user, pass string
		bad                          bool
	}{
		{uri: "s3://b/items.jsonl", bucket: "b", key: "items.jsonl"},
		{uri: "s3://k:s@b/a/b.csv", bucket: "b", key: "a/b.csv", user: "k", pass: "s"},
		{uri: "s3://k%2Fx:s%40y@b/%(name)s/%(batch_id)02d.jsonl", bucket: "b", key: "%(name)s/%(batch_id)02d.jsonl", user: "k/x", pass: "s@y"},
		{uri: "s3://b/", bad: true},
		{uri: "s3:///k.json", bad: true},
		{uri: "s3://b/dir/", bad: true},
	} {
		t.Run(tc.uri, func(t *testing.T) {
			t.Parallel()
			b, k, u, p, err := parseS3(tc.uri)
			if tc.bad {
				if err == nil {
					t.Fatalf("parseS3(%q) accepted it", tc.uri)
				}
				return
			}
			if err != nil || b != tc.bucket || k != tc.key || u != tc.user || p != tc.pass {
				t.Errorf("parseS3(%q) = %q %q %q %q %v", tc.uri, b, k, u, p, err)
			}
		})
	}
}
