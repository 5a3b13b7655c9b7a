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
			if c.Data.DB.Schema != "mileage" || c.Base.Addr != ":8080" || c.Auth.JWKSURL == "" || c.Data.TopicPartitions != 3 {
				t.Fatalf("config = %+v", c)
			}
		}},
		{"schema override", with("DB_SCHEMA", "mileage_test"), "", func(t *testing.T, c Config) {
			if c.Data.DB.Schema != "mileage_test" {
				t.Fatalf("schema = %s", c.Data.DB.Schema)
			}
		}},
		{"cursor secret", with("PAGE_CURSOR_SECRET", "s3cret"), "", func(t *testing.T, c Config) {
			if c.Data.PageCursorSecret != "s3cret" {
				t.Fatalf("secret = %q", c.Data.PageCursorSecret)
			}
		}},
		// make run gives every service the storage variables: they are
		// not this service's and must not stop it.
		{"foreign variables ignored", with("STORAGE_BACKEND", "fs", "STORAGE_DIR", "/tmp/x"), "", nil},
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
