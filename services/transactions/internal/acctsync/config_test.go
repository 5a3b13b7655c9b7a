package acctsync

import (
	"encoding/base64"
	"reflect"
	"strings"
	"testing"
	"time"

	pkgconfig "github.com/acctsuite/acct/pkg/config"
)

func TestConfigDefaults(t *testing.T) {
	var c Config
	if err := pkgconfig.LoadFrom(&c, nil); err != nil {
		t.Fatal(err)
	}
	if c.Enabled() {
		t.Fatal("enabled without a client id")
	}
	want := map[string]string{
		"AuthURL":    "https://appcenter.intuit.com/connect/oauth2",
		"TokenURL":   "https://oauth.platform.intuit.com/oauth2/v1/tokens/bearer",
		"APIBaseURL": "https://quickbooks.api.intuit.com",
		"RevokeURL":  "https://developer.api.intuit.com/v2/oauth2/tokens/revoke",
	}
	got := map[string]string{"AuthURL": c.AuthURL, "TokenURL": c.TokenURL, "APIBaseURL": c.APIBaseURL, "RevokeURL": c.RevokeURL}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("endpoints = %v, want %v", got, want)
	}
	if !reflect.DeepEqual(c.Scopes(), []string{"com.intuit.quickbooks.accounting"}) {
		t.Errorf("Scopes = %v", c.Scopes())
	}
	if c.StateTTL != 10*time.Minute || c.QueryPageSize != 1000 {
		t.Errorf("StateTTL %s, QueryPageSize %d", c.StateTTL, c.QueryPageSize)
	}
}

func TestConfigValidate(t *testing.T) {
	key := base64.StdEncoding.EncodeToString(make([]byte, 32))
	enabled := map[string]string{
		"ACCTSYNC_CLIENT_ID": "id", "ACCTSYNC_CLIENT_SECRET": "secret",
		"ACCTSYNC_REDIRECT_URL": "https://api.example.com/v1/acctsync/callback", "ACCTSYNC_TOKEN_ENCRYPTION_KEY": key,
	}
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for a, b := range enabled {
			m[a] = b
		}
		if v == "<unset>" {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		name    string
		env     map[string]string
		wantErr string
	}{
		{"disabled", nil, ""},
		{"enabled", enabled, ""},
		{"scopes list", with("ACCTSYNC_SCOPES", "com.intuit.quickbooks.accounting, openid"), ""},
		{"no secret", with("ACCTSYNC_CLIENT_SECRET", "<unset>"), "ACCTSYNC_CLIENT_SECRET"},
		{"no key", with("ACCTSYNC_TOKEN_ENCRYPTION_KEY", "<unset>"), "ACCTSYNC_TOKEN_ENCRYPTION_KEY"},
		{"short key", with("ACCTSYNC_TOKEN_ENCRYPTION_KEY", base64.StdEncoding.EncodeToString(make([]byte, 16))), "ACCTSYNC_TOKEN_ENCRYPTION_KEY"},
		{"no redirect", with("ACCTSYNC_REDIRECT_URL", "<unset>"), "ACCTSYNC_REDIRECT_URL"},
		{"relative redirect", with("ACCTSYNC_REDIRECT_URL", "/v1/acctsync/callback"), "ACCTSYNC_REDIRECT_URL"},
		{"bad token url", with("ACCTSYNC_TOKEN_URL", "ftp://x"), "ACCTSYNC_TOKEN_URL"},
		{"no scopes", with("ACCTSYNC_SCOPES", " , "), "ACCTSYNC_SCOPES"},
		{"state ttl too long", with("ACCTSYNC_STATE_TTL", "2h"), "ACCTSYNC_STATE_TTL"},
		{"page size", with("ACCTSYNC_QUERY_PAGE_SIZE", "1001"), "ACCTSYNC_QUERY_PAGE_SIZE"},
		{"bad success url when disabled too", map[string]string{"ACCTSYNC_SUCCESS_URL": "nope"}, "ACCTSYNC_SUCCESS_URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Config
			err := pkgconfig.LoadFrom(&c, tt.env)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if c.Enabled() && len(c.EncryptionKey()) != 32 {
					t.Fatalf("EncryptionKey has %d bytes", len(c.EncryptionKey()))
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want one naming %s", err, tt.wantErr)
			}
		})
	}
}
