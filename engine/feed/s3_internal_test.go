package feed

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/jscrawl/jscrawl/engine/enginetest"
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

// TestS3AbortUnfinished: the multipart uploads a killed run left on a batch's key are
// aborted when the job resumes; those on other keys stay.
func TestS3AbortUnfinished(t *testing.T) {
	t.Parallel()
	srv := enginetest.StartS3(t, "feeds")
	opts := S3Options{AccessKeyID: enginetest.S3AccessKey, SecretAccessKey: enginetest.S3SecretKey, EndpointURL: srv.Endpoint, Region: "us-east-1"}
	ctx := context.Background()
	obj, err := openS3(ctx, "s3://feeds/job/1.jsonl", opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"job/1.jsonl", "job/1.jsonl", "job/10.jsonl"} {
		if _, err := obj.client.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String("feeds"), Key: aws.String(key)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := obj.abortUnfinished(ctx); err != nil {
		t.Fatal(err)
	}
	out, err := obj.client.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: aws.String("feeds")})
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, u := range out.Uploads {
		left = append(left, *u.Key)
	}
	if len(left) != 1 || left[0] != "job/10.jsonl" {
		t.Errorf("uploads left %v, want [job/10.jsonl]", left)
	}
}
