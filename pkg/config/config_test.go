package config

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// HTTP is an example block with defaults and its own Validate (the kit's
// servicekit.Base is the real listener block).
type HTTP struct {
	Addr            string        `env:"HTTP_ADDR" envDefault:":8080"`
	BodyLimit       int           `env:"BODY_LIMIT_BYTES" envDefault:"10485760"`
	ShutdownTimeout time.Duration `env:"SHUTDOWN_TIMEOUT" envDefault:"20s"`
}

// Validate rejects values that would make the server unusable.
func (h HTTP) Validate() error {
	if h.Addr == "" {
		return errors.New("HTTP_ADDR must not be empty")
	}
	if h.BodyLimit <= 0 {
		return fmt.Errorf("BODY_LIMIT_BYTES must be positive, got %d", h.BodyLimit)
	}
	if h.ShutdownTimeout < 0 {
		return fmt.Errorf("SHUTDOWN_TIMEOUT must not be negative, got %s", h.ShutdownTimeout)
	}
	return nil
}

type serviceConfig struct {
	HTTP
	Log
	Kafka
	JWKSURL string `env:"JWKS_URL" envDefault:"http://127.0.0.1:8081/.well-known/jwks.json"`
	Secret  string `env:"SECRET,required"`
	Limit   int    `env:"LIMIT" envDefault:"5"`
}

func (c *serviceConfig) Validate() error {
	if c.Limit > 100 {
		return errors.New("LIMIT must be at most 100")
	}
	return nil
}

type nested struct {
	Upstream struct {
		Timeout time.Duration `env:"TIMEOUT" envDefault:"1s"`
	} `envPrefix:"UPSTREAM_"`
}

func TestLoad(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		wantErr string
		check   func(t *testing.T, c *serviceConfig)
	}{
		{
			name: "defaults",
			env:  map[string]string{"SECRET": "s"},
			check: func(t *testing.T, c *serviceConfig) {
				if c.Addr != ":8080" || c.BodyLimit != 10485760 || c.ShutdownTimeout != 20*time.Second {
					t.Errorf("http defaults: %+v", c.HTTP)
				}
				if c.Level != "info" {
					t.Errorf("log level %q", c.Level)
				}
				if len(c.Brokers) != 1 || c.Brokers[0] != "127.0.0.1:9092" {
					t.Errorf("brokers %v", c.Brokers)
				}
				if c.Limit != 5 {
					t.Errorf("limit %d", c.Limit)
				}
			},
		},
		{
			name: "overrides",
			env: map[string]string{"SECRET": "s", "HTTP_ADDR": "127.0.0.1:9000", "BODY_LIMIT_BYTES": "100",
				"SHUTDOWN_TIMEOUT": "3s", "LOG_LEVEL": "debug", "KAFKA_BROKERS": "a:1,b:2"},
			check: func(t *testing.T, c *serviceConfig) {
				if c.Addr != "127.0.0.1:9000" || c.BodyLimit != 100 || c.ShutdownTimeout != 3*time.Second {
					t.Errorf("http: %+v", c.HTTP)
				}
				if c.Level != "debug" {
					t.Errorf("log level %q", c.Level)
				}
				if strings.Join(c.Brokers, ",") != "a:1,b:2" {
					t.Errorf("brokers %v", c.Brokers)
				}
			},
		},
		{name: "missing required", env: map[string]string{}, wantErr: "SECRET"},
		{name: "bad duration names variable", env: map[string]string{"SECRET": "s", "SHUTDOWN_TIMEOUT": "soon"}, wantErr: "SHUTDOWN_TIMEOUT"},
		{name: "bad int names variable", env: map[string]string{"SECRET": "s", "BODY_LIMIT_BYTES": "lots"}, wantErr: "BODY_LIMIT_BYTES"},
		{name: "non-positive body limit", env: map[string]string{"SECRET": "s", "BODY_LIMIT_BYTES": "0"}, wantErr: "BODY_LIMIT_BYTES must be positive"},
		{name: "bad log level", env: map[string]string{"SECRET": "s", "LOG_LEVEL": "loud"}, wantErr: "LOG_LEVEL"},
		{name: "empty broker entry", env: map[string]string{"SECRET": "s", "KAFKA_BROKERS": "a:1,,b:2"}, wantErr: "KAFKA_BROKERS"},
		{name: "service Validate runs", env: map[string]string{"SECRET": "s", "LIMIT": "101"}, wantErr: "LIMIT must be at most 100"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c serviceConfig
			err := LoadFrom(&c, tt.env)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want it to mention %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			tt.check(t, &c)
		})
	}
}

func TestLoadNestedPrefixNamesVariable(t *testing.T) {
	var c nested
	err := LoadFrom(&c, map[string]string{"UPSTREAM_TIMEOUT": "later"})
	if err == nil || !strings.Contains(err.Error(), "UPSTREAM_TIMEOUT") {
		t.Fatalf("error = %v, want UPSTREAM_TIMEOUT named", err)
	}
	if err := LoadFrom(&c, map[string]string{"UPSTREAM_TIMEOUT": "250ms"}); err != nil || c.Upstream.Timeout != 250*time.Millisecond {
		t.Fatalf("nested: %v %v", err, c.Upstream.Timeout)
	}
}

func TestLoadFromProcessEnvironment(t *testing.T) {
	t.Setenv("SECRET", "from-env")
	t.Setenv("HTTP_ADDR", ":9999")
	var c serviceConfig
	if err := Load(&c); err != nil {
		t.Fatalf("Load: %v", err)
	}
	if c.Secret != "from-env" || c.Addr != ":9999" {
		t.Fatalf("got %+v", c)
	}
}

func TestLoadRejectsNonPointer(t *testing.T) {
	if err := Load(serviceConfig{}); err == nil {
		t.Fatal("Load of a non-pointer succeeded")
	}
}

func TestReadFrom(t *testing.T) {
	type cfg struct {
		HTTP HTTP
		Name string `env:"NAME" envDefault:"svc"`
	}
	c, err := ReadFrom[cfg](map[string]string{"HTTP_ADDR": ":9000"})
	if err != nil || c.HTTP.Addr != ":9000" || c.Name != "svc" {
		t.Fatalf("ReadFrom = %+v, %v", c, err)
	}
	c, err = ReadFrom[cfg](map[string]string{"BODY_LIMIT_BYTES": "-1"})
	if err == nil || !strings.Contains(err.Error(), "BODY_LIMIT_BYTES") || c.HTTP.Addr != "" {
		t.Fatalf("invalid value: %+v, %v", c, err)
	}
}

func TestKafkaValidate(t *testing.T) {
	base := Kafka{Brokers: []string{"b:9093"}}
	with := func(f func(*Kafka)) Kafka { k := base; f(&k); return k }
	tests := []struct {
		name    string
		k       Kafka
		wantErr string
	}{
		{"plaintext", base, ""},
		{"tls from a CA file alone", with(func(k *Kafka) { k.TLSCAFile = "/ca.pem" }), ""},
		{"client certificate without key", with(func(k *Kafka) { k.TLS, k.TLSCertFile = true, "/c.pem" }), "KAFKA_TLS_KEY_FILE"},
		{"scram", with(func(k *Kafka) { k.SASLMechanism, k.SASLUsername, k.SASLPassword = SASLScramSHA512, "u", "p" }), ""},
		{"scram without password", with(func(k *Kafka) { k.SASLMechanism, k.SASLUsername = SASLScramSHA256, "u" }), "KAFKA_SASL_PASSWORD"},
		{"plain over tls", with(func(k *Kafka) { k.TLS, k.SASLMechanism, k.SASLUsername, k.SASLPassword = true, SASLPlain, "u", "p" }), ""},
		{"plain in clear", with(func(k *Kafka) { k.SASLMechanism, k.SASLUsername, k.SASLPassword = SASLPlain, "u", "p" }), "KAFKA_TLS"},
		{"msk iam", with(func(k *Kafka) { k.TLS, k.SASLMechanism = true, SASLAWSMSKIAM }), ""},
		{"msk iam without tls", with(func(k *Kafka) { k.SASLMechanism = SASLAWSMSKIAM }), "KAFKA_TLS"},
		{"unknown mechanism", with(func(k *Kafka) { k.SASLMechanism = "GSSAPI" }), "KAFKA_SASL_MECHANISM"},
		{"credentials without mechanism", with(func(k *Kafka) { k.SASLUsername = "u" }), "KAFKA_SASL_MECHANISM"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.k.Validate()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Validate = %v, want an error naming %s", err, tt.wantErr)
			}
		})
	}
}
