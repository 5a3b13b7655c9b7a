// Package configtest is the one shape of a service's configuration test:
// table cases (an environment, the error it must give or a check of what
// it loads) run against the service's LoadFrom, with the cases every
// service on the kit shares (database, schema, cursor secret, partitions,
// foreign variables) ready-made.
package configtest

import (
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/acctsuite/acct/pkg/exportfiles"
	"github.com/acctsuite/acct/pkg/servicekit"
	"github.com/acctsuite/acct/pkg/storage"
)

// DatabaseURL is the DATABASE_URL of Env.
const DatabaseURL = "postgres://u@127.0.0.1:5432/db?sslmode=disable"

// Case is one environment and what loading it must give: WantErr (a text
// the error must contain), else a config that Check (when not nil)
// accepts (nil error).
type Case[C any] struct {
	Name    string
	Env     map[string]string
	WantErr string
	Check   func(c C) error
}

// Env is the smallest environment a kit service loads (DATABASE_URL) with
// the pairs of kv (name, value, name, value...) added or replaced.
func Env(kv ...string) map[string]string {
	return With(map[string]string{"DATABASE_URL": DatabaseURL}, kv...)
}

// With is a copy of base with the pairs of kv added or replaced.
func With(base map[string]string, kv ...string) map[string]string {
	if len(kv)%2 != 0 {
		panic("configtest: odd number of name/value arguments")
	}
	m := maps.Clone(base)
	if m == nil {
		m = map[string]string{}
	}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

// Run checks each case in a subtest of its own.
func Run[C any](t *testing.T, load func(env map[string]string) (C, error), cases []Case[C]) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.Name, func(t *testing.T) {
			if err := Check(load, tt); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Check loads tt's environment with load and says how the outcome differs
// from what tt wants (nil when it does not).
func Check[C any](load func(env map[string]string) (C, error), tt Case[C]) error {
	c, err := load(tt.Env)
	if tt.WantErr != "" {
		if err == nil || !strings.Contains(err.Error(), tt.WantErr) {
			return fmt.Errorf("error = %v, want one naming %s", err, tt.WantErr)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("load: %w", err)
	}
	if tt.Check != nil {
		if err := tt.Check(c); err != nil {
			return fmt.Errorf("config %+v: %w", c, err)
		}
	}
	return nil
}

// Blocks are the kit's configuration blocks of a service's config.
type Blocks struct {
	Base servicekit.Base
	Data servicekit.Data
	Auth servicekit.Auth
}

// Kit is the cases every service on the kit shares, for a service whose
// default schema is schema and whose config's blocks blocks returns:
// the defaults, a schema override, the cursor secret, the variables of
// other services ignored (make run gives every service the same
// environment), and the refusals of a missing database, a bad schema and
// a bad partition count.
func Kit[C any](schema string, blocks func(C) Blocks) []Case[C] {
	return []Case[C]{
		{Name: "defaults", Env: Env(), Check: func(c C) error {
			b := blocks(c)
			if b.Data.DB.Schema != schema || b.Base.Addr != ":8080" || b.Auth.JWKSURL == "" || b.Data.TopicPartitions != 3 {
				return fmt.Errorf("schema %q, addr %q, JWKS URL %q, partitions %d: not the defaults",
					b.Data.DB.Schema, b.Base.Addr, b.Auth.JWKSURL, b.Data.TopicPartitions)
			}
			return nil
		}},
		{Name: "schema override", Env: Env("DB_SCHEMA", schema+"_test"), Check: func(c C) error {
			if got := blocks(c).Data.DB.Schema; got != schema+"_test" {
				return fmt.Errorf("schema = %s", got)
			}
			return nil
		}},
		{Name: "cursor secret", Env: Env("PAGE_CURSOR_SECRET", "s3cret"), Check: func(c C) error {
			if got := blocks(c).Data.PageCursorSecret; got != "s3cret" {
				return fmt.Errorf("secret = %q", got)
			}
			return nil
		}},
		{Name: "foreign variables ignored", Env: Env("BOOTSTRAP_CLIENT_ID", "demo", "UPSTREAM_TIMEOUT", "1s", "RATE_LIMIT_RPS", "5")},
		{Name: "no database", Env: map[string]string{}, WantErr: "DATABASE_URL"},
		{Name: "bad schema", Env: Env("DB_SCHEMA", "Bad-Name"), WantErr: "DB_SCHEMA"},
		{Name: "bad partitions", Env: Env("KAFKA_TOPIC_PARTITIONS", "0"), WantErr: "KAFKA_TOPIC_PARTITIONS"},
	}
}

// SigningKey is a valid STORAGE_SIGNING_KEY (base64 of 32 bytes).
const SigningKey = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="

// Storage is the cases of a service with optional object storage
// (storage.Optional): off without STORAGE_DIR, on with a directory and a
// signing key, refused without the key, and S3 refused without a bucket.
func Storage[C any](of func(C) storage.Optional) []Case[C] {
	return []Case[C]{
		{Name: "storage off", Env: Env(), Check: func(c C) error {
			if of(c).Enabled() {
				return fmt.Errorf("storage enabled without STORAGE_DIR")
			}
			return nil
		}},
		{Name: "storage on", Env: Env("STORAGE_BACKEND", "fs", "STORAGE_DIR", "/tmp/x", "STORAGE_SIGNING_KEY", SigningKey), Check: func(c C) error {
			if st := of(c); !st.Enabled() || st.Config().Dir != "/tmp/x" {
				return fmt.Errorf("storage = %+v", st)
			}
			return nil
		}},
		{Name: "storage without signing key", Env: Env("STORAGE_BACKEND", "fs", "STORAGE_DIR", "/tmp/x"), WantErr: "STORAGE_SIGNING_KEY"},
		{Name: "s3 without bucket", Env: Env("STORAGE_BACKEND", "s3"), WantErr: "S3_BUCKET"},
	}
}

// WithoutStorage is the case of a service that keeps no objects: make run
// gives every service the storage variables, which must not stop it.
func WithoutStorage[C any]() Case[C] {
	return Case[C]{Name: "storage variables ignored", Env: Env("STORAGE_BACKEND", "fs", "STORAGE_DIR", "/tmp/x")}
}

// Exports are the cases of a service that writes export files (of reads
// its exportfiles.Policy): EXPORT_TTL and EXPORT_REUSE_WINDOW default to
// 24h and 5m, 0 turns each off, EXPORT_LIFECYCLE_RULE is off unless set,
// and negative values or a window past the TTL are refused.
func Exports[C any](of func(C) exportfiles.Policy) []Case[C] {
	want := func(ttl, reuse time.Duration, rule bool) func(c C) error {
		return func(c C) error {
			if p := of(c); p.TTL != ttl || p.ReuseWindow != reuse || p.LifecycleRule != rule {
				return fmt.Errorf("exports %+v, want TTL %s, reuse window %s, lifecycle rule %v", p, ttl, reuse, rule)
			}
			return nil
		}
	}
	return []Case[C]{
		{Name: "export defaults", Env: Env(), Check: want(24*time.Hour, 5*time.Minute, false)},
		{Name: "exports kept forever, never reused", Env: Env("EXPORT_TTL", "0", "EXPORT_REUSE_WINDOW", "0"), Check: want(0, 0, false)},
		{Name: "export TTL, window and lifecycle rule", Env: Env("EXPORT_TTL", "2h", "EXPORT_REUSE_WINDOW", "90s", "EXPORT_LIFECYCLE_RULE", "true"),
			Check: want(2*time.Hour, 90*time.Second, true)},
		{Name: "negative export TTL", Env: Env("EXPORT_TTL", "-1h"), WantErr: "EXPORT_TTL"},
		{Name: "negative reuse window", Env: Env("EXPORT_REUSE_WINDOW", "-1m"), WantErr: "EXPORT_REUSE_WINDOW"},
		{Name: "reuse window past the TTL", Env: Env("EXPORT_TTL", "10m", "EXPORT_REUSE_WINDOW", "1h"), WantErr: "shorter than EXPORT_TTL"},
	}
}
