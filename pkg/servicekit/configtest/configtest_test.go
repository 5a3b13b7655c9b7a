package configtest_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/acctsuite/acct/pkg/config"
	"github.com/acctsuite/acct/pkg/servicekit"
	"github.com/acctsuite/acct/pkg/servicekit/configtest"
	"github.com/acctsuite/acct/pkg/storage"
)

// kitConfig is a service configuration made of the kit's blocks only.
type kitConfig struct {
	Base servicekit.Base
	Data servicekit.Data
	Auth servicekit.Auth
}

func (c *kitConfig) Validate() error {
	if c.Data.DB.Schema == "" {
		c.Data.DB.Schema = "things"
	}
	return nil
}

func blocks(c kitConfig) configtest.Blocks {
	return configtest.Blocks{Base: c.Base, Data: c.Data, Auth: c.Auth}
}

func TestKitCasesOnAKitConfig(t *testing.T) {
	configtest.Run(t, config.ReadFrom[kitConfig], configtest.Kit("things", blocks))
}

// TestKitCasesFailOnAnotherDefault: the shared cases catch a service
// whose default schema is not the one it claims.
func TestKitCasesFailOnAnotherDefault(t *testing.T) {
	failed := 0
	for _, tt := range configtest.Kit("other", blocks) {
		if configtest.Check(config.ReadFrom[kitConfig], tt) != nil {
			failed++
		}
	}
	if failed != 1 { // the defaults (an override is the override whatever the default)
		t.Fatalf("%d kit cases failed on the wrong schema, want 1", failed)
	}
}

// TestCheck: what a case wants against what loading gives.
func TestCheck(t *testing.T) {
	load := func(env map[string]string) (string, error) {
		if msg, ok := env["FAIL"]; ok {
			return "", errors.New(msg)
		}
		return env["V"], nil
	}
	isY := func(v string) error {
		if v != "y" {
			return fmt.Errorf("v = %s", v)
		}
		return nil
	}
	tests := []struct {
		tt   configtest.Case[string]
		pass bool
	}{
		{configtest.Case[string]{Name: "loads as checked", Env: configtest.With(nil, "V", "y"), Check: isY}, true},
		{configtest.Case[string]{Name: "refused as wanted", Env: configtest.With(nil, "FAIL", "bad KAFKA_X"), WantErr: "KAFKA_X"}, true},
		{configtest.Case[string]{Name: "wants an error, loads", Env: configtest.With(nil, "V", "x"), WantErr: "V"}, false},
		{configtest.Case[string]{Name: "refused, should load", Env: configtest.With(nil, "FAIL", "boom")}, false},
		{configtest.Case[string]{Name: "error without the text", Env: configtest.With(nil, "FAIL", "boom"), WantErr: "KAFKA"}, false},
		{configtest.Case[string]{Name: "check fails", Env: configtest.With(nil, "V", "x"), Check: isY}, false},
	}
	for _, c := range tests {
		t.Run(c.tt.Name, func(t *testing.T) {
			if err := configtest.Check(load, c.tt); (err == nil) != c.pass {
				t.Fatalf("Check = %v, want pass %v", err, c.pass)
			}
		})
	}
}

func TestWith(t *testing.T) {
	base := configtest.Env()
	m := configtest.With(base, "A", "1", "DATABASE_URL", "x")
	if m["A"] != "1" || m["DATABASE_URL"] != "x" || base["DATABASE_URL"] != configtest.DatabaseURL || len(base) != 1 {
		t.Fatalf("With = %v, base = %v", m, base)
	}
}

// storageConfig is a kit config with optional storage.
type storageConfig struct {
	kitConfig
	Storage storage.Optional
}

func TestStorageCases(t *testing.T) {
	configtest.Run(t, config.ReadFrom[storageConfig], configtest.Storage(func(c storageConfig) storage.Optional { return c.Storage }))
}
