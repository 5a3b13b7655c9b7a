package config

import (
	"fmt"
	"testing"
	"time"

	"github.com/acctsuite/acct/pkg/servicekit/configtest"
	"github.com/acctsuite/acct/pkg/storage"
)

func TestLoad(t *testing.T) {
	cases := configtest.Kit("reports", func(c Config) configtest.Blocks {
		return configtest.Blocks{Base: c.Base, Data: c.Data, Auth: c.Auth}
	})
	cases = append(cases, configtest.Storage(func(c Config) storage.Optional { return c.Storage })...)
	cases = append(cases, exportCases()...)
	configtest.Run(t, LoadFrom, cases)
}

// exportCases: EXPORT_TTL and EXPORT_REUSE_WINDOW default to 24h and 5m,
// 0 turns each off, and a negative value is refused.
func exportCases() []configtest.Case[Config] {
	want := func(ttl, reuse time.Duration) func(c Config) error {
		return func(c Config) error {
			if c.Exports.TTL != ttl || c.Exports.ReuseWindow != reuse {
				return fmt.Errorf("exports %+v, want TTL %s and reuse window %s", c.Exports, ttl, reuse)
			}
			return nil
		}
	}
	return []configtest.Case[Config]{
		{Name: "export defaults", Env: configtest.Env(), Check: want(24*time.Hour, 5*time.Minute)},
		{Name: "exports kept forever, never reused", Env: configtest.Env("EXPORT_TTL", "0", "EXPORT_REUSE_WINDOW", "0"), Check: want(0, 0)},
		{Name: "export TTL and window", Env: configtest.Env("EXPORT_TTL", "2h", "EXPORT_REUSE_WINDOW", "90s"), Check: want(2*time.Hour, 90*time.Second)},
		{Name: "negative export TTL", Env: configtest.Env("EXPORT_TTL", "-1h"), WantErr: "EXPORT_TTL"},
		{Name: "negative reuse window", Env: configtest.Env("EXPORT_REUSE_WINDOW", "-1m"), WantErr: "EXPORT_REUSE_WINDOW"},
		{Name: "reuse window past the TTL", Env: configtest.Env("EXPORT_TTL", "10m", "EXPORT_REUSE_WINDOW", "1h"), WantErr: "shorter than EXPORT_TTL"},
	}
}
