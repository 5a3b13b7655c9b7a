package storage_test

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/config"
	"github.com/acctsuite/acct/pkg/storage"
	"github.com/acctsuite/acct/pkg/storage/storagetest"
)

func TestValidateKey(t *testing.T) {
	for _, key := range []string{
		"a",
		"receipts/0190f0c2-7e3b-7c6d-9a51-3b1f6c9d2e10/r.pdf",
		"exports/biz=1/date=2024-01-31/pnl_v2.CSV",
		"a.b.c/d..e/f.",
		strings.Repeat("s", storage.MaxKeySegmentLength),
		strings.Repeat("abc/", storage.MaxKeyLength/4-1) + "abc",
	} {
		if err := storage.ValidateKey(key); err != nil {
			t.Errorf("ValidateKey(%.40q) = %v, want nil", key, err)
		}
	}
	for _, key := range storagetest.InvalidKeys {
		err := storage.ValidateKey(key)
		var ae *apperr.Error
		if !errors.Is(err, storage.ErrInvalidKey) || !errors.As(err, &ae) {
			t.Fatalf("ValidateKey(%.40q) = %v, want an apperr error matching ErrInvalidKey", key, err)
		}
		body := ae.Body()
		if ae.Status() != 400 || body.ErrorEnum != "InvalidObjectKey" || body.Meta["fields"].(map[string]string)["key"] == "" {
			t.Errorf("ValidateKey(%.40q) renders %d %+v, want 400 InvalidObjectKey naming the key field", key, ae.Status(), body)
		}
	}
}

func TestConfig(t *testing.T) {
	goodKey := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("k", 32)))
	urlKey := base64.RawURLEncoding.EncodeToString([]byte(strings.Repeat("\xff", 40)))
	cases := []struct {
		name    string
		env     map[string]string
		wantErr string // substring; "" means valid
		check   func(t *testing.T, c storage.Config)
	}{
		{"fs needs a directory", map[string]string{"STORAGE_SIGNING_KEY": goodKey}, "STORAGE_DIR", nil},
		{"fs needs a key", map[string]string{"STORAGE_DIR": "/d"}, "STORAGE_SIGNING_KEY is required", nil},
		{"fs key too short", map[string]string{"STORAGE_DIR": "/d", "STORAGE_SIGNING_KEY": base64.StdEncoding.EncodeToString([]byte("short"))}, "at least 32 bytes", nil},
		{"fs key not base64", map[string]string{"STORAGE_DIR": "/d", "STORAGE_SIGNING_KEY": "not base64!!"}, "not valid base64", nil},
		{"fs bad public URL", map[string]string{"STORAGE_DIR": "/d", "STORAGE_SIGNING_KEY": goodKey, "STORAGE_PUBLIC_BASE_URL": "127.0.0.1:8080"}, "STORAGE_PUBLIC_BASE_URL", nil},
		{"fs defaults", map[string]string{"STORAGE_DIR": "/d", "STORAGE_SIGNING_KEY": goodKey}, "", func(t *testing.T, c storage.Config) {
			if c.Backend != "fs" || c.PublicBaseURL != "http://127.0.0.1:8080" {
				t.Errorf("defaults: %+v", c)
			}
			if k, err := c.SigningKeyBytes(); err != nil || len(k) != 32 {
				t.Errorf("SigningKeyBytes = %d bytes, %v", len(k), err)
			}
		}},
		{"fs URL-safe unpadded key", map[string]string{"STORAGE_DIR": "/d", "STORAGE_SIGNING_KEY": urlKey}, "", func(t *testing.T, c storage.Config) {
			if k, err := c.SigningKeyBytes(); err != nil || len(k) != 40 {
				t.Errorf("SigningKeyBytes = %d bytes, %v", len(k), err)
			}
		}},
		{"s3 needs a bucket", map[string]string{"STORAGE_BACKEND": "s3"}, "S3_BUCKET", nil},
		{"s3 bad endpoint", map[string]string{"STORAGE_BACKEND": "s3", "S3_BUCKET": "b", "S3_ENDPOINT": "minio:9000"}, "S3_ENDPOINT", nil},
		{"s3 bad path style", map[string]string{"STORAGE_BACKEND": "s3", "S3_BUCKET": "b", "S3_FORCE_PATH_STYLE": "maybe"}, "S3_FORCE_PATH_STYLE", nil},
		{"s3 full", map[string]string{"STORAGE_BACKEND": "s3", "S3_BUCKET": "receipts", "S3_REGION": "eu-west-3",
			"S3_ENDPOINT": "http://127.0.0.1:7070", "S3_FORCE_PATH_STYLE": "true"}, "", func(t *testing.T, c storage.Config) {
			want := storage.Config{Backend: "s3", PublicBaseURL: "http://127.0.0.1:8080", S3Bucket: "receipts", S3Region: "eu-west-3",
				S3Endpoint: "http://127.0.0.1:7070", S3ForcePathStyle: true}
			if c != want {
				t.Errorf("parsed %+v, want %+v", c, want)
			}
		}},
		{"unknown backend", map[string]string{"STORAGE_BACKEND": "gcs"}, `STORAGE_BACKEND must be "fs" or "s3"`, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var c storage.Config
			err := config.LoadFrom(&c, tc.env)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("LoadFrom: %v", err)
				}
				tc.check(t, c)
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("LoadFrom = %v, want an error mentioning %q", err, tc.wantErr)
			}
		})
	}
}

func TestConfigDownloadHandler(t *testing.T) {
	fs := storage.Config{Backend: "fs", Dir: t.TempDir(), PublicBaseURL: "http://127.0.0.1:8080",
		SigningKey: base64.StdEncoding.EncodeToString(randomKey(t))}
	if h, err := fs.DownloadHandler(); err != nil || h == nil {
		t.Fatalf("fs DownloadHandler = %v, %v; want a handler", h != nil, err)
	}
	s3 := storage.Config{Backend: "s3", S3Bucket: "b", S3Region: "us-east-1"}
	if h, err := s3.DownloadHandler(); err != nil || h != nil {
		t.Fatalf("s3 DownloadHandler = %v, %v; want none (clients download from S3)", h != nil, err)
	}
	if _, err := (storage.Config{Backend: "fs"}).DownloadHandler(); err == nil {
		t.Fatalf("DownloadHandler of an invalid config succeeded")
	}
}
