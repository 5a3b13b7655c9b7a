package config

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pkgconfig "github.com/acctsuite/acct/pkg/config"
)

func TestLoad(t *testing.T) {
	key := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("k", 32)))
	keyFile := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(keyFile, []byte(key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	base := func() map[string]string {
		return map[string]string{"DATABASE_URL": "postgres://u@127.0.0.1:5432/db?sslmode=disable", "SIGNING_KEY_ENCRYPTION_KEY": key}
	}
	with := func(kv ...string) map[string]string {
		m := base()
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == "" {
				delete(m, kv[i])
			} else {
				m[kv[i]] = kv[i+1]
			}
		}
		return m
	}
	tests := []struct {
		name    string
		env     map[string]string
		wantErr string
		check   func(t *testing.T, c Config)
	}{
		{"defaults", base(), "", func(t *testing.T, c Config) {
			if c.Data.DB.Schema != "auth" || c.TokenIssuer != "acct-auth-tokens" || c.BusinessTokenMaxSeconds != 86400 ||
				c.SigningKeyRotation != 720*time.Hour || c.Base.Addr != ":8080" || len(c.EncryptionKey()) != 32 ||
				c.SigningKeyPublishLead != 10*time.Minute || c.SecretCheckConcurrency != 0 || c.SecretCheckWait != 250*time.Millisecond ||
				c.SecretCacheTTL != 5*time.Minute {
				t.Fatalf("config = %+v", c)
			}
		}},
		{"key from file", with("SIGNING_KEY_ENCRYPTION_KEY", "", "SIGNING_KEY_ENCRYPTION_KEY_FILE", keyFile), "", func(t *testing.T, c Config) {
			if string(c.EncryptionKey()) != strings.Repeat("k", 32) {
				t.Fatal("wrong key from file")
			}
		}},
		{"bootstrap name defaults to id", with("BOOTSTRAP_CLIENT_ID", "demo", "BOOTSTRAP_CLIENT_SECRET", "demo-secret"), "", func(t *testing.T, c Config) {
			if c.BootstrapClientName != "demo" {
				t.Fatalf("name = %q", c.BootstrapClientName)
			}
		}},
		{"no encryption key", with("SIGNING_KEY_ENCRYPTION_KEY", ""), "SIGNING_KEY_ENCRYPTION_KEY", nil},
		{"short encryption key", with("SIGNING_KEY_ENCRYPTION_KEY", base64.StdEncoding.EncodeToString([]byte("short"))), "want 32", nil},
		{"both key sources", with("SIGNING_KEY_ENCRYPTION_KEY_FILE", keyFile), "not both", nil},
		{"missing key file", with("SIGNING_KEY_ENCRYPTION_KEY", "", "SIGNING_KEY_ENCRYPTION_KEY_FILE", "/nonexistent"), "SIGNING_KEY_ENCRYPTION_KEY_FILE", nil},
		{"no database", with("DATABASE_URL", ""), "DATABASE_URL", nil},
		{"bad max seconds", with("BUSINESS_TOKEN_MAX_SECONDS", "10"), "BUSINESS_TOKEN_MAX_SECONDS", nil},
		{"bootstrap without secret", with("BOOTSTRAP_CLIENT_ID", "demo"), "BOOTSTRAP_CLIENT_SECRET", nil},
		{"bad bootstrap id", with("BOOTSTRAP_CLIENT_ID", "no spaces", "BOOTSTRAP_CLIENT_SECRET", "x"), "BOOTSTRAP_CLIENT_ID", nil},
		{"rotation too short", with("SIGNING_KEY_ROTATION", "1m"), "SIGNING_KEY_ROTATION", nil},
		{"publish lead zero", with("SIGNING_KEY_PUBLISH_LEAD", "0s"), "SIGNING_KEY_PUBLISH_LEAD", nil},
		{"publish lead over half the rotation", with("SIGNING_KEY_ROTATION", "2h", "SIGNING_KEY_PUBLISH_LEAD", "61m"), "SIGNING_KEY_PUBLISH_LEAD", nil},
		{"negative check concurrency", with("CLIENT_SECRET_CHECK_CONCURRENCY", "-1"), "CLIENT_SECRET_CHECK_CONCURRENCY", nil},
		{"zero check wait", with("CLIENT_SECRET_CHECK_WAIT", "0s"), "CLIENT_SECRET_CHECK_WAIT", nil},
		{"cache ttl too long", with("CLIENT_SECRET_CACHE_TTL", "2h"), "CLIENT_SECRET_CACHE_TTL", nil},
		{"cache disabled", with("CLIENT_SECRET_CACHE_TTL", "-1s"), "", func(t *testing.T, c Config) {
			if c.SecretCacheTTL >= 0 || c.SecretChecks().CacheTTL >= 0 {
				t.Fatalf("ttl = %s", c.SecretCacheTTL)
			}
		}},
		{"secret checks", with("CLIENT_SECRET_CHECK_CONCURRENCY", "3", "CLIENT_SECRET_CHECK_WAIT", "1s", "CLIENT_SECRET_CACHE_TTL", "30s"), "", func(t *testing.T, c Config) {
			if o := c.SecretChecks(); o.MaxConcurrent != 3 || o.MaxWait != time.Second || o.CacheTTL != 30*time.Second {
				t.Fatalf("secret checks = %+v", o)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Config
			err := pkgconfig.LoadFrom(&c, tt.env)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to mention %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, c)
		})
	}
}
