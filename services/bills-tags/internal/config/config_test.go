package config

import (
	"strings"
	"testing"
)

func TestLoad(t *testing.T) {
	base := map[string]string{"DATABASE_URL": "postgres://u@127.0.0.1:5432/db?sslmode=disable"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name    string
		env     map[string]string
		wantErr string
		check   func(t *testing.T, c Config)
	}{
		{"defaults", base, "", func(t *testing.T, c Config) {
			if c.Data.DB.Schema != "bills" || c.Base.Addr != ":8080" || c.Auth.JWKSURL == "" || c.Data.TopicPartitions != 3 {
				t.Fatalf("config = %+v", c)
			}
		}},
		{"schema override", with("DB_SCHEMA", "bills_test"), "", func(t *testing.T, c Config) {
			if c.Data.DB.Schema != "bills_test" {
				t.Fatalf("schema = %s", c.Data.DB.Schema)
			}
		}},
		{"cursor secret", with("PAGE_CURSOR_SECRET", "s3cret"), "", func(t *testing.T, c Config) {
			if c.Data.PageCursorSecret != "s3cret" {
				t.Fatalf("secret = %q", c.Data.PageCursorSecret)
			}
		}},
		// Receipt storage: off without STORAGE_DIR, checked when set.
		{"storage off", with(), "", func(t *testing.T, c Config) {
			if c.Storage.Enabled() {
				t.Fatal("storage enabled without STORAGE_DIR")
			}
		}},
		{"storage on", with("STORAGE_BACKEND", "fs", "STORAGE_DIR", "/tmp/x", "STORAGE_SIGNING_KEY", strings.Repeat("QUJD", 11)), "", func(t *testing.T, c Config) {
			if !c.Storage.Enabled() || c.Storage.Config().Dir != "/tmp/x" {
				t.Fatalf("storage = %+v", c.Storage)
			}
		}},
		{"storage without signing key", with("STORAGE_BACKEND", "fs", "STORAGE_DIR", "/tmp/x"), "STORAGE_SIGNING_KEY", nil},
		{"no database", map[string]string{}, "DATABASE_URL", nil},
		{"bad schema", with("DB_SCHEMA", "Bad-Name"), "DB_SCHEMA", nil},
		{"bad partitions", with("KAFKA_TOPIC_PARTITIONS", "0"), "KAFKA_TOPIC_PARTITIONS", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := LoadFrom(tt.env)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one naming %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("LoadFrom: %v", err)
			}
			if tt.check != nil {
				tt.check(t, c)
			}
		})
	}
}
