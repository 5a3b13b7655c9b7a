// Package config reads a service's configuration from environment variables
// into one typed struct (caarlos0/env tags, envDefault), then runs the
// struct's Validate method when it has one. It also holds the Log and Kafka
// blocks (pkg/servicekit's configuration blocks embed them) so the variable
// names stay the same everywhere.
package config

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/caarlos0/env/v11"
)

// Log is the logging block shared by every service.
type Log struct {
	Level string `env:"LOG_LEVEL" envDefault:"info"`
}

// Validate accepts the levels log/slog understands (debug, info, warn, error).
func (l Log) Validate() error {
	switch strings.ToLower(strings.TrimSpace(l.Level)) {
	case "debug", "info", "warn", "warning", "error":
		return nil
	}
	return fmt.Errorf("LOG_LEVEL must be one of debug, info, warn, error; got %q", l.Level)
}

// Kafka is the broker block of event-producing and event-consuming
// services: the brokers, and the TLS and SASL every connection to them
// uses (producers, consumers, topic creation, the readiness check).
type Kafka struct {
	Brokers []string `env:"KAFKA_BROKERS" envDefault:"127.0.0.1:9092" envSeparator:","`
	// TLS: on when KAFKA_TLS is true or any KAFKA_TLS_* file is given.
	// The CA bundle replaces the system roots when set; a client
	// certificate and key (both or neither) authenticate by mTLS; the
	// server name overrides the one checked in the broker's certificate.
	TLS           bool   `env:"KAFKA_TLS"`
	TLSCAFile     string `env:"KAFKA_TLS_CA_FILE"`
	TLSCertFile   string `env:"KAFKA_TLS_CERT_FILE"`
	TLSKeyFile    string `env:"KAFKA_TLS_KEY_FILE"`
	TLSServerName string `env:"KAFKA_TLS_SERVER_NAME"`
	// SASLMechanism is empty (none), PLAIN, SCRAM-SHA-256, SCRAM-SHA-512
	// (with the user name and password) or AWS_MSK_IAM (credentials from
	// the pod's AWS identity, the region from KAFKA_SASL_AWS_REGION or
	// the AWS environment).
	SASLMechanism string `env:"KAFKA_SASL_MECHANISM"`
	SASLUsername  string `env:"KAFKA_SASL_USERNAME"`
	SASLPassword  string `env:"KAFKA_SASL_PASSWORD"`
	SASLAWSRegion string `env:"KAFKA_SASL_AWS_REGION"`
}

// SASL mechanisms of Kafka.SASLMechanism.
const (
	SASLPlain       = "PLAIN"
	SASLScramSHA256 = "SCRAM-SHA-256"
	SASLScramSHA512 = "SCRAM-SHA-512"
	SASLAWSMSKIAM   = "AWS_MSK_IAM"
)

// TLSEnabled reports whether connections use TLS.
func (k Kafka) TLSEnabled() bool {
	return k.TLS || k.TLSCAFile != "" || k.TLSCertFile != "" || k.TLSKeyFile != "" || k.TLSServerName != ""
}

// Validate requires at least one non-empty broker address, a known SASL
// mechanism with what it needs, and a client certificate with its key.
// The files themselves are read when the connection is made
// (events.Connect), which names a missing or bad one.
func (k Kafka) Validate() error {
	if len(k.Brokers) == 0 {
		return errors.New("KAFKA_BROKERS must list at least one broker")
	}
	for _, b := range k.Brokers {
		if strings.TrimSpace(b) == "" {
			return fmt.Errorf("KAFKA_BROKERS has an empty entry: %q", strings.Join(k.Brokers, ","))
		}
	}
	if (k.TLSCertFile == "") != (k.TLSKeyFile == "") {
		return errors.New("KAFKA_TLS_CERT_FILE and KAFKA_TLS_KEY_FILE go together: set both or neither")
	}
	switch k.SASLMechanism {
	case "":
		if k.SASLUsername != "" || k.SASLPassword != "" {
			return errors.New("KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD need KAFKA_SASL_MECHANISM (PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)")
		}
	case SASLPlain, SASLScramSHA256, SASLScramSHA512:
		if k.SASLUsername == "" || k.SASLPassword == "" {
			return fmt.Errorf("KAFKA_SASL_MECHANISM %s needs KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD", k.SASLMechanism)
		}
		if k.SASLMechanism == SASLPlain && !k.TLSEnabled() {
			return errors.New("KAFKA_SASL_MECHANISM PLAIN sends the password in clear: enable KAFKA_TLS")
		}
	case SASLAWSMSKIAM:
		if !k.TLSEnabled() {
			return errors.New("KAFKA_SASL_MECHANISM AWS_MSK_IAM needs KAFKA_TLS (MSK's IAM listener is TLS only)")
		}
	default:
		return fmt.Errorf("KAFKA_SASL_MECHANISM %q: must be PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or AWS_MSK_IAM", k.SASLMechanism)
	}
	return nil
}

// Validator is implemented by configuration structs that check themselves.
type Validator interface{ Validate() error }

// Load fills cfg (a pointer to a struct) from the process environment and
// then calls cfg.Validate() if cfg implements Validator. Errors name the
// offending variable.
func Load(cfg any) error {
	return load(cfg, nil)
}

// LoadFrom is Load reading from the given environment instead of the
// process's; tests use it to avoid touching os.Environ.
func LoadFrom(cfg any, environ map[string]string) error {
	if environ == nil {
		environ = map[string]string{}
	}
	return load(cfg, environ)
}

func load(cfg any, environ map[string]string) error {
	opts := env.Options{Environment: environ}
	if err := env.ParseWithOptions(cfg, opts); err != nil {
		return describe(cfg, err, environ)
	}
	if err := validate(reflect.ValueOf(cfg)); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	return nil
}

// validate runs Validate on every nested block first (embedding several
// shared blocks makes their Validate methods ambiguous, so none would be
// promoted) and then on the value itself.
func validate(v reflect.Value) error {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil
	}
	for i := range v.NumField() {
		if !v.Type().Field(i).IsExported() {
			continue
		}
		f := v.Field(i)
		if f.Kind() == reflect.Struct || (f.Kind() == reflect.Pointer && f.Type().Elem().Kind() == reflect.Struct) {
			if err := validate(f); err != nil {
				return err
			}
		}
	}
	var target any
	if v.CanAddr() {
		target = v.Addr().Interface()
	} else {
		target = v.Interface()
	}
	if val, ok := target.(Validator); ok {
		return val.Validate()
	}
	return nil
}

// describe rewrites env's errors so each names the environment variable
// rather than the Go field (env's ParseError only knows the field).
func describe(cfg any, err error, environ map[string]string) error {
	var agg env.AggregateError
	if !errors.As(err, &agg) {
		return fmt.Errorf("config: %w", err)
	}
	keys := fieldKeys(reflect.TypeOf(cfg), "")
	msgs := make([]string, 0, len(agg.Errors))
	for _, e := range agg.Errors {
		var pe env.ParseError
		if errors.As(e, &pe) {
			vars := candidates(keys[pe.Name], environ)
			msgs = append(msgs, fmt.Sprintf("%s: invalid value for %s: %v", strings.Join(vars, " or "), pe.Type, pe.Err))
			continue
		}
		msgs = append(msgs, e.Error())
	}
	return fmt.Errorf("config: %s: %w", strings.Join(msgs, "; "), err)
}

// candidates narrows the variables of a field name to those actually set,
// since only a set (or defaulted) value can fail to parse.
func candidates(keys []string, environ map[string]string) []string {
	var set []string
	for _, k := range keys {
		var ok bool
		if environ != nil {
			_, ok = environ[k]
		} else {
			_, ok = os.LookupEnv(k)
		}
		if ok {
			set = append(set, k)
		}
	}
	if len(set) == 0 {
		return keys
	}
	return set
}

// fieldKeys maps Go field names to the environment variables they read,
// following nested structs and envPrefix like env does.
func fieldKeys(t reflect.Type, prefix string) map[string][]string {
	out := map[string][]string{}
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return
		}
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("env"), ",")
			if name != "" && name != "-" {
				key := prefix + name
				if !slices.Contains(out[f.Name], key) {
					out[f.Name] = append(out[f.Name], key)
				}
				continue
			}
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct && ft != reflect.TypeOf(time.Time{}) {
				walk(ft, prefix+f.Tag.Get("envPrefix"))
			}
		}
	}
	walk(t, prefix)
	return out
}

// Read is Load into a fresh value of type T: a service's
// `func Load() (Config, error) { return config.Read[Config]() }`.
func Read[T any]() (T, error) {
	var c T
	if err := Load(&c); err != nil {
		var zero T
		return zero, err
	}
	return c, nil
}

// ReadFrom is Read from the given environment (tests).
func ReadFrom[T any](environ map[string]string) (T, error) {
	var c T
	if err := LoadFrom(&c, environ); err != nil {
		var zero T
		return zero, err
	}
	return c, nil
}
