package feed

import (
	"compress/gzip"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/jscrawl/jscrawl/types"
)

// This file is the S3 storage (Scrapy: S3FeedStorage): a feed whose URI is s3://bucket/key
// is written by the format writers to a local temporary file, as a file sink writes, and
// the file is uploaded to the object when the feed (or its batch) closes, in a multipart
// upload that is completed only once every part is in: the object is either whole or
// absent, never half-written. A failed upload is aborted, so no parts are left behind.

// S3Options are the S3 settings of a crawl (Scrapy's AWS_* settings). Empty fields leave
// the SDK's defaults: the standard AWS environment variables (AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION, AWS_ENDPOINT_URL_S3 …) and shared
// config files. Credentials in the URI (s3://key:secret@bucket/path) come first.
type S3Options struct {
	AccessKeyID     string
	SecretAccessKey string
	SessionToken    string
	// EndpointURL is an S3-compatible server's URL; a host that is an IP address gets
	// path-style addressing (http://10.0.0.1:9000/bucket/key).
	EndpointURL string
	// Region defaults to the AWS configuration's, else us-east-1.
	Region string
}

// S3OptionsFrom reads the AWS_* settings.
func S3OptionsFrom(s *types.Settings) S3Options {
	return S3Options{
		AccessKeyID:     s.String(types.AWSAccessKeyID),
		SecretAccessKey: s.String(types.AWSSecretAccessKey),
		SessionToken:    s.String(types.AWSSessionToken),
		EndpointURL:     s.String(types.AWSEndpointURL),
		Region:          s.String(types.AWSRegionName),
	}
}

// s3PartSize is the size of each part of a multipart upload but the last: S3's least,
// 5 MiB, or more when the object would need more than S3's 10,000 parts.
func s3PartSize(size int64) int64 {
	return max(5<<20, (size+9999)/10000)
}

// s3Timeout bounds each S3 call.
const s3Timeout = 5 * time.Minute

// isS3 reports whether uri names an S3 object.
func isS3(uri string) bool {
	m := schemeRE.FindStringSubmatch(uri)
	return m != nil && strings.EqualFold(m[1], "s3")
}

// s3Object is the target of an S3 feed (or batch): a client and the object's bucket and key.
type s3Object struct {
	client *s3.Client
	bucket string
	key    string
	shown  string // the URI with its credentials masked
}

// parseS3 returns the bucket, the key and the URI's credentials (user info, unescaped) of
// an s3:// URI. The key is taken as it is written (it may hold %(...)s templates).
func parseS3(uri string) (bucket, key, user, pass string, err error) {
	m := schemeRE.FindString(uri)
	auth, key, _ := strings.Cut(uri[len(m):], "/")
	if at := strings.LastIndexByte(auth, '@'); at >= 0 {
		u, p, _ := strings.Cut(auth[:at], ":")
		if user, err = url.PathUnescape(u); err == nil {
			pass, err = url.PathUnescape(p)
		}
		if err != nil {
			return "", "", "", "", errors.New("s3 feed uri: bad escape in its credentials")
		}
		auth = auth[at+1:]
	}
	bucket = auth
	if bucket == "" || key == "" || strings.HasSuffix(key, "/") {
		return "", "", "", "", errors.New("s3 feed uri needs a bucket and a key (s3://bucket/path/file.jsonl)")
	}
	return bucket, key, user, pass, nil
}

// s3Key returns the object key of an s3:// URI, for its format's extension, or "".
func s3Key(uri string) string {
	_, key, _, _, err := parseS3(uri)
	if err != nil {
		return ""
	}
	return key
}

// openS3 returns the target of uri with a client configured from opts (and the URI's
// credentials) and checks that the bucket can be reached with them, so that a wrong
// credential or bucket fails when the feed opens, not after the crawl.
func openS3(ctx context.Context, uri string, opts S3Options) (*s3Object, error) {
	bucket, key, user, pass, err := parseS3(uri)
	if err != nil {
		return nil, err
	}
	if user != "" {
		opts.AccessKeyID, opts.SecretAccessKey, opts.SessionToken = user, pass, ""
	}
	client, err := newS3Client(ctx, opts)
	if err != nil {
		return nil, err
	}
	o := &s3Object{client: client, bucket: bucket, key: key, shown: types.MaskURL(uri)}
	cctx, cancel := context.WithTimeout(ctx, s3Timeout)
	defer cancel()
	if creds := client.Options().Credentials; creds != nil {
		if _, err := creds.Retrieve(cctx); err != nil {
			return nil, fmt.Errorf("s3 bucket %s: no AWS credentials (set %s and %s, or the AWS environment variables): %w",
				bucket, types.AWSAccessKeyID, types.AWSSecretAccessKey, s3Err(err))
		}
	}
	if _, err := client.HeadBucket(cctx, &s3.HeadBucketInput{Bucket: aws.String(bucket)}); err != nil {
		return nil, fmt.Errorf("s3 bucket %s%s: %w", bucket, headHint(err), s3Err(err))
	}
	return o, nil
}

// newS3Client builds an S3 client from opts over the SDK's default configuration.
func newS3Client(ctx context.Context, opts S3Options) (*s3.Client, error) {
	var load []func(*config.LoadOptions) error
	if opts.Region != "" {
		load = append(load, config.WithRegion(opts.Region))
	}
	if opts.AccessKeyID != "" || opts.SecretAccessKey != "" {
		load = append(load, config.WithCredentialsProvider(
			credentials.NewStaticCredentialsProvider(opts.AccessKeyID, opts.SecretAccessKey, opts.SessionToken)))
	}
	cfg, err := config.LoadDefaultConfig(ctx, load...)
	if err != nil {
		return nil, fmt.Errorf("aws configuration: %w", err)
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	if opts.EndpointURL != "" {
		if u, err := url.Parse(opts.EndpointURL); err != nil || u.Host == "" {
			return nil, fmt.Errorf("%s %q is not a URL", types.AWSEndpointURL, types.MaskURL(opts.EndpointURL))
		}
	}
	return s3.NewFromConfig(cfg, func(o *s3.Options) {
		if opts.EndpointURL != "" {
			o.BaseEndpoint = aws.String(opts.EndpointURL)
		}
		// o.BaseEndpoint is resolved by now, from AWS_ENDPOINT_URL(_S3) or the config too.
		if o.BaseEndpoint != nil {
			if u, err := url.Parse(*o.BaseEndpoint); err == nil && net.ParseIP(u.Hostname()) != nil {
				o.UsePathStyle = true
			}
		}
	}), nil
}

// upload stores the size bytes of r in the object with a multipart upload (a PutObject for
// an empty one), which it aborts when a part fails: the object is then as it was.
func (o *s3Object) upload(ctx context.Context, r io.ReaderAt, size int64) error {
	ctx, cancel := context.WithTimeout(ctx, s3Timeout)
	defer cancel()
	if size == 0 {
		_, err := o.client.PutObject(ctx, &s3.PutObjectInput{Bucket: &o.bucket, Key: &o.key, Body: strings.NewReader("")})
		return s3Err(err)
	}
	mp, err := o.client.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &o.bucket, Key: &o.key})
	if err != nil {
		return fmt.Errorf("start multipart upload: %w", s3Err(err))
	}
	var parts []s3types.CompletedPart
	part := s3PartSize(size)
	err = func() error {
		for off, n := int64(0), int32(1); off < size; off, n = off+part, n+1 {
			ln := min(part, size-off)
			out, err := o.client.UploadPart(ctx, &s3.UploadPartInput{Bucket: &o.bucket, Key: &o.key, UploadId: mp.UploadId,
				PartNumber: aws.Int32(n), Body: io.NewSectionReader(r, off, ln), ContentLength: aws.Int64(ln)})
			if err != nil {
				return fmt.Errorf("upload part %d: %w", n, s3Err(err))
			}
			parts = append(parts, s3types.CompletedPart{ETag: out.ETag, PartNumber: aws.Int32(n)})
		}
		_, err := o.client.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: &o.bucket, Key: &o.key,
			UploadId: mp.UploadId, MultipartUpload: &s3types.CompletedMultipartUpload{Parts: parts}})
		if err != nil {
			return fmt.Errorf("complete multipart upload: %w", s3Err(err))
		}
		return nil
	}()
	if err != nil {
		actx, acancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer acancel()
		if _, aerr := o.client.AbortMultipartUpload(actx, &s3.AbortMultipartUploadInput{Bucket: &o.bucket, Key: &o.key, UploadId: mp.UploadId}); aerr != nil {
			err = errors.Join(err, fmt.Errorf("abort multipart upload: %w", s3Err(aerr)))
		}
	}
	return err
}

// headHint says what a HeadBucket error's status means.
func headHint(err error) string {
	var re *smithyhttp.ResponseError
	if !errors.As(err, &re) {
		return ""
	}
	switch re.HTTPStatusCode() {
	case 400, 401, 403:
		return " refused the credentials (check " + types.AWSAccessKeyID + " and " + types.AWSSecretAccessKey +
			", the AWS environment variables, or the URI's; and the key's rights on the bucket)"
	case 404:
		return " does not exist"
	case 301:
		return " is in another region (set " + types.AWSRegionName + ")"
	}
	return ""
}

// s3Err keeps the SDK's error, masking any URL with credentials in its text.
func s3Err(err error) error {
	if err == nil {
		return nil
	}
	return &maskedError{err: err}
}

// maskedError is an error whose text has its URLs' credentials masked.
type maskedError struct{ err error }

func (e *maskedError) Error() string { return types.MaskURLsIn(e.err.Error()) }
func (e *maskedError) Unwrap() error { return e.err }

// openS3Sink is openSink for an s3:// URI: the format writer writes to a local file,
// which close uploads: a temporary file, or in a job the file local (kept after the upload,
// for a resume).
func openS3Sink(uri, format string, cfg Config, opts S3Options, local string, s *sink) (*sink, error) {
	obj, err := openS3(context.Background(), uri, opts)
	if err != nil {
		return nil, err
	}
	s.uri, s.obj = obj.shown, obj
	if local == "" {
		s.file, err = os.CreateTemp("", "jscrawl-s3-feed-*")
	} else if err = os.MkdirAll(filepath.Dir(local), 0o755); err == nil {
		s.file, err = os.OpenFile(local, os.O_RDWR|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o644)
		s.keep = true
	}
	if err != nil {
		return nil, fmt.Errorf("create the local file of %s: %w", obj.shown, err)
	}
	s.path, s.made, s.out = s.file.Name(), true, s.file
	if strings.HasSuffix(strings.ToLower(obj.key), ".gz") {
		s.gz = gzip.NewWriter(&s.zbuf)
	}
	if s.exp, err = newExporter(format, &s.rec, cfg, s.logger, resume{}); err != nil {
		s.discard()
		return nil, err
	}
	return s, nil
}

// Jobs. In a job (Env.JobDir) an S3 feed writes each batch (or the whole feed) to a local
// file in the job's folder, s3/<feed>-<batch>.part, and the job commits its Position in
// that file as it does a file feed's. A batch is uploaded whole when it closes (when the
// next item starts the next batch, or at Close), before the job's commit can name the next
// batch, so the batches before Position.Batch are in the bucket, complete. A resumed job
// cuts the local file of Position.Batch back to Position.Offset and continues it, then
// uploads it again when it closes: the object is replaced whole by one that holds the
// batch's committed items and those scraped again. A killed run may have uploaded that
// batch and later ones with items the job had not committed; the resumed job writes them
// again under the same keys (%(batch_id)d; %(batch_time)s is refused), so every object is
// replaced and every item ends in exactly one. Multipart uploads a kill left unfinished
// on the batch's key are aborted when the job resumes. The local file of an uploaded batch
// is removed once a commit names a later batch (Committed), or when the job resumes.

// openSink opens the storage of uri (expanded) for the feed's current batch.
func (f *Feed) openSink(uri string) (*sink, error) { return f.openSinkWith(uri, f.cfg) }

// openSinkWith is openSink with cfg instead of the feed's Config.
func (f *Feed) openSinkWith(uri string, cfg Config) (*sink, error) {
	if isS3(uri) && f.env.JobDir != "" {
		return openS3Sink(uri, f.format, cfg, f.env.S3, f.localPath(f.batchID), &sink{logger: f.logger})
	}
	return openSink(uri, f.format, cfg, f.env, f.logger)
}

// Committed tells the feed that the job committed pos, a Position of its Sync: an s3://
// feed of a job removes the local files of the batches before pos.Batch, which are in the
// bucket and which no resume can need again. Other feeds do nothing.
func (f *Feed) Committed(pos Position) {
	if !isS3(f.template) || f.env.JobDir == "" || f.cfg.BatchItemCount == 0 {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for b := f.pruned + 1; b < pos.Batch; b++ {
		os.Remove(f.localPath(b))
	}
	f.pruned = max(f.pruned, pos.Batch-1)
}

// localPath is the local file of an S3 feed's batch in the job's folder.
func (f *Feed) localPath(batch int) string {
	sum := sha256.Sum256([]byte(f.template))
	return filepath.Join(f.env.JobDir, "s3", fmt.Sprintf("%x-%d.part", sum[:8], batch))
}

// resumeS3 is resumeSink for an S3 feed of a resumed job (see Jobs above).
func (f *Feed) resumeS3(uri string, pos Position) (*sink, error) {
	obj, err := openS3(context.Background(), uri, f.env.S3)
	if err != nil {
		return nil, err
	}
	if err := obj.abortUnfinished(context.Background()); err != nil {
		return nil, err
	}
	f.Committed(Position{Batch: f.batchID}) // the uploaded batches' files
	s := &sink{uri: obj.shown, obj: obj, keep: true, path: f.localPath(f.batchID), logger: f.logger}
	return resumeFile(s, f.format, f.cfg, f.logger, pos)
}

// abortUnfinished aborts the multipart uploads of the object that were never completed (a
// killed upload's), so that no parts are left in the bucket.
func (o *s3Object) abortUnfinished(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s3Timeout)
	defer cancel()
	out, err := o.client.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: &o.bucket, Prefix: &o.key})
	if err != nil {
		return fmt.Errorf("list the unfinished uploads of %s: %w", o.shown, s3Err(err))
	}
	for _, u := range out.Uploads {
		if u.Key == nil || *u.Key != o.key {
			continue
		}
		if _, err := o.client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: &o.bucket, Key: &o.key, UploadId: u.UploadId}); err != nil {
			return fmt.Errorf("abort an unfinished upload of %s: %w", o.shown, s3Err(err))
		}
	}
	return nil
}
