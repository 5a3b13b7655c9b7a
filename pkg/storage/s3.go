package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/feature/s3/transfermanager"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// S3Options configures an S3Store.
type S3Options struct {
	Bucket string
	Region string // us-east-1 when empty
	// Endpoint is the SDK's BaseEndpoint, for S3-compatible services
	// (e.g. http://127.0.0.1:7070); empty means AWS.
	Endpoint string
	// ForcePathStyle addresses buckets as {endpoint}/{bucket}/{key} rather
	// than {bucket}.{endpoint}/{key}; most S3-compatible services need it.
	ForcePathStyle bool
	// Credentials, when nil, come from the SDK's default chain
	// (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, shared files, IRSA, IMDS...).
	Credentials aws.CredentialsProvider
	// PartSize and Concurrency bound an upload's memory to about
	// (Concurrency+2) × PartSize whatever the object's size: uploads of
	// unknown size are sent as multipart uploads of PartSize parts.
	// Defaults: DefaultS3PartSize and DefaultS3Concurrency.
	PartSize    int64
	Concurrency int
	// HTTPClient overrides the SDK's HTTP client (nil: the SDK's default).
	HTTPClient *http.Client
}

// Upload tuning defaults: S3's minimum part size, and two parts in flight,
// which keeps an upload near 20 MiB of memory while still overlapping
// reading the source with sending.
const (
	DefaultS3PartSize    = 5 << 20
	DefaultS3Concurrency = 2
)

// S3Store keeps objects in an S3 bucket (AWS or any S3-compatible service).
type S3Store struct {
	bucket   string
	client   *s3.Client
	presign  *s3.PresignClient
	transfer *transfermanager.Client
}

// NewS3 makes an S3 store. It does not contact the service (nor check that
// the bucket exists): the first request does.
func NewS3(ctx context.Context, opts S3Options) (*S3Store, error) {
	if opts.Bucket == "" {
		return nil, errors.New("storage: s3: bucket is required")
	}
	if opts.Region == "" {
		opts.Region = "us-east-1"
	}
	if opts.PartSize == 0 {
		opts.PartSize = DefaultS3PartSize
	}
	if opts.PartSize < DefaultS3PartSize {
		return nil, fmt.Errorf("storage: s3: part size %d is below S3's minimum of %d bytes", opts.PartSize, DefaultS3PartSize)
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = DefaultS3Concurrency
	}
	loadOpts := []func(*awsconfig.LoadOptions) error{awsconfig.WithRegion(opts.Region)}
	if opts.Credentials != nil {
		loadOpts = append(loadOpts, awsconfig.WithCredentialsProvider(opts.Credentials))
	}
	if opts.HTTPClient != nil {
		loadOpts = append(loadOpts, awsconfig.WithHTTPClient(opts.HTTPClient))
	}
	cfg, err := awsconfig.LoadDefaultConfig(ctx, loadOpts...)
	if err != nil {
		return nil, fmt.Errorf("storage: s3: load AWS configuration: %w", err)
	}
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.UsePathStyle = opts.ForcePathStyle
		if opts.Endpoint != "" {
			o.BaseEndpoint = aws.String(opts.Endpoint)
		}
		// Checksums only where S3 requires them: the SDK's default
		// (a CRC on every request and response) is refused by several
		// S3-compatible services, and SigV4 already covers integrity.
		o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
	})
	return &S3Store{
		bucket:  opts.Bucket,
		client:  client,
		presign: s3.NewPresignClient(client),
		transfer: transfermanager.New(client, func(o *transfermanager.Options) {
			o.PartSizeBytes = opts.PartSize
			o.MultipartUploadThreshold = opts.PartSize
			o.Concurrency = opts.Concurrency
			o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
			// Abort a failed multipart upload even when ctx was cancelled,
			// so no orphaned parts are billed.
			o.FailTimeout = 30 * time.Second
		}),
	}, nil
}

// Client is the underlying S3 client (bucket administration in tests and
// tools).
func (s *S3Store) Client() *s3.Client { return s.client }

// Bucket is the store's bucket.
func (s *S3Store) Bucket() string { return s.bucket }

// Put implements Store with the SDK's transfer manager: objects up to
// PartSize go in one PutObject, larger ones (and any of unknown size past
// PartSize) as a multipart upload that is aborted on failure, so a failed Put
// never leaves a partial object.
func (s *S3Store) Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	ct, err := normalizeContentType(contentType)
	if err != nil {
		return err
	}
	in := &transfermanager.UploadObjectInput{
		Bucket:      aws.String(s.bucket),
		Key:         aws.String(key),
		Body:        newSizedReader(r, size),
		ContentType: aws.String(ct),
	}
	if size > 0 {
		// Lets the manager raise the part size for objects that would
		// otherwise need more than S3's 10,000 parts.
		in.ContentLength = aws.Int64(size)
	}
	if _, err := s.transfer.UploadObject(ctx, in); err != nil {
		return fmt.Errorf("storage: put %s: %w", key, err)
	}
	return nil
}

// Get implements Store.
func (s *S3Store) Get(ctx context.Context, key string) (io.ReadCloser, Object, error) {
	if err := ValidateKey(key); err != nil {
		return nil, Object{}, err
	}
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	if err != nil {
		return nil, Object{}, fmt.Errorf("storage: get %s: %w", key, normalizeS3Error(err))
	}
	obj := Object{
		Key:         key,
		Size:        aws.ToInt64(out.ContentLength),
		ContentType: aws.ToString(out.ContentType),
		ETag:        strings.Trim(aws.ToString(out.ETag), `"`),
		Modified:    aws.ToTime(out.LastModified).UTC(),
	}
	return out.Body, obj, nil
}

// Stat implements Store with HeadObject.
func (s *S3Store) Stat(ctx context.Context, key string) (Object, error) {
	if err := ValidateKey(key); err != nil {
		return Object{}, err
	}
	out, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	if err != nil {
		return Object{}, fmt.Errorf("storage: stat %s: %w", key, normalizeS3Error(err))
	}
	return Object{
		Key:         key,
		Size:        aws.ToInt64(out.ContentLength),
		ContentType: aws.ToString(out.ContentType),
		ETag:        strings.Trim(aws.ToString(out.ETag), `"`),
		Modified:    aws.ToTime(out.LastModified).UTC(),
	}, nil
}

// listPageSize is how many keys one ListObjectsV2 request asks for (S3's
// maximum; a variable so that a test can exercise the pagination).
var listPageSize int32 = 1000

// List implements Store with ListObjectsV2, page by page (S3 lists in
// ascending bytewise key order). Keys that ValidateKey rejects (written to
// the bucket by something else) are skipped, as no other method accepts
// them.
func (s *S3Store) List(ctx context.Context, prefix string, fn func(Object) error) error {
	if err := ValidatePrefix(prefix); err != nil {
		return err
	}
	in := &s3.ListObjectsV2Input{Bucket: aws.String(s.bucket), MaxKeys: aws.Int32(listPageSize)}
	if prefix != "" {
		in.Prefix = aws.String(prefix)
	}
	pages := s3.NewListObjectsV2Paginator(s.client, in)
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("storage: list %s: %w", prefix, err)
		}
		for _, o := range page.Contents {
			key := aws.ToString(o.Key)
			if ValidateKey(key) != nil {
				continue
			}
			if err := fn(Object{Key: key, Size: aws.ToInt64(o.Size), Modified: aws.ToTime(o.LastModified).UTC()}); err != nil {
				return err
			}
		}
	}
	return nil
}

// Delete implements Store (S3 answers success for a missing key).
func (s *S3Store) Delete(ctx context.Context, key string) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	_, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	if err != nil && !errors.Is(normalizeS3Error(err), ErrNotFound) {
		return fmt.Errorf("storage: delete %s: %w", key, err)
	}
	return nil
}

// PresignGet implements Store with a SigV4 pre-signed GetObject URL; the
// served content type (ServedContentType of opts.ContentType) and the
// disposition (an attachment with the file name, or a nameless one for a
// type that is not InlineSafe) are signed response parameters.
func (s *S3Store) PresignGet(ctx context.Context, key string, expiry time.Duration, opts PresignOptions) (string, error) {
	if err := ValidateKey(key); err != nil {
		return "", err
	}
	if err := validateFilename(opts.Filename); err != nil {
		return "", err
	}
	expiry, err := presignExpiry(expiry)
	if err != nil {
		return "", err
	}
	served := ServedContentType(opts.ContentType)
	in := &s3.GetObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key), ResponseContentType: aws.String(served)}
	if d := servedDisposition(served, opts.Filename); d != "" {
		in.ResponseContentDisposition = aws.String(d)
	}
	req, err := s.presign.PresignGetObject(ctx, in, s3.WithPresignExpires(expiry))
	if err != nil {
		return "", fmt.Errorf("storage: presign %s: %w", key, err)
	}
	return req.URL, nil
}

// normalizeS3Error maps S3's "no such key" answers to ErrNotFound (but not
// a missing bucket, which is a configuration error).
func normalizeS3Error(err error) error {
	var api smithy.APIError
	if errors.As(err, &api) && api.ErrorCode() == "NoSuchBucket" {
		return err
	}
	var nsk *types.NoSuchKey
	var nf *types.NotFound
	var re *smithyhttp.ResponseError
	if errors.As(err, &nsk) || errors.As(err, &nf) || (errors.As(err, &re) && re.HTTPStatusCode() == http.StatusNotFound) {
		return fmt.Errorf("%w (%v)", ErrNotFound, err)
	}
	return err
}
