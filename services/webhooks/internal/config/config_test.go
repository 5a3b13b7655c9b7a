package config

import (
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/acctsuite/acct/pkg/servicekit/configtest"
)

const key = configtest.SigningKey // any base64 of 32 bytes

// withKey is LoadFrom with WEBHOOKS_SECRET_KEY set when env has none (the
// kit's shared cases do not know it).
func withKey(env map[string]string) (Config, error) {
	e := maps.Clone(env)
	if _, ok := e["WEBHOOKS_SECRET_KEY"]; !ok && e != nil {
		e["WEBHOOKS_SECRET_KEY"] = key
	}
	return LoadFrom(e)
}

func TestLoad(t *testing.T) {
	cases := configtest.Kit("webhooks", func(c Config) configtest.Blocks {
		return configtest.Blocks{Base: c.Base, Data: c.Data, Auth: c.Auth}
	})
	configtest.Run(t, withKey, cases)
}

func TestWebhooksBlock(t *testing.T) {
	configtest.Run(t, LoadFrom, []configtest.Case[Config]{
		{Name: "defaults", Env: configtest.Env("WEBHOOKS_SECRET_KEY", key), Check: func(c Config) error {
			w := c.Webhooks
			if w.AllowPrivate || w.AllowHTTP || w.Timeout != 15*time.Second || w.Concurrency != 64 || w.PerEndpoint != 8 || !w.Dispatch || w.Lease != 2*time.Minute ||
				len(w.Key()) != 32 || w.Schedule().String() != "5s,5m0s,30m0s,2h0m0s,5h0m0s,10h0m0s,10h0m0s" {
				return fmt.Errorf("not the defaults: %+v %s", w, w.Schedule())
			}
			return nil
		}},
		{Name: "settings", Env: configtest.Env("WEBHOOKS_SECRET_KEY", key, "WEBHOOKS_ALLOW_PRIVATE", "true", "WEBHOOKS_ALLOW_HTTP", "true",
			"WEBHOOKS_RETRY_SCHEDULE", "1s,2s", "WEBHOOKS_CONCURRENCY", "4", "WEBHOOKS_PER_ENDPOINT", "2"), Check: func(c Config) error {
			w := c.Webhooks
			if !w.AllowPrivate || !w.AllowHTTP || len(w.Schedule()) != 2 || w.Concurrency != 4 || w.PerEndpoint != 2 {
				return fmt.Errorf("%+v", w)
			}
			return nil
		}},
		{Name: "no key", Env: configtest.Env(), WantErr: "WEBHOOKS_SECRET_KEY is required"},
		{Name: "short key", Env: configtest.Env("WEBHOOKS_SECRET_KEY", "c2hvcnQ="), WantErr: "WEBHOOKS_SECRET_KEY"},
		{Name: "bad schedule", Env: configtest.Env("WEBHOOKS_SECRET_KEY", key, "WEBHOOKS_RETRY_SCHEDULE", "5s,never"), WantErr: "WEBHOOKS_RETRY_SCHEDULE"},
		{Name: "timeout", Env: configtest.Env("WEBHOOKS_SECRET_KEY", key, "WEBHOOKS_TIMEOUT", "2m"), WantErr: "WEBHOOKS_TIMEOUT"},
		{Name: "lease shorter than an attempt", Env: configtest.Env("WEBHOOKS_SECRET_KEY", key, "WEBHOOKS_LEASE", "15s"), WantErr: "WEBHOOKS_LEASE"},
		{Name: "per endpoint over total", Env: configtest.Env("WEBHOOKS_SECRET_KEY", key, "WEBHOOKS_CONCURRENCY", "4", "WEBHOOKS_PER_ENDPOINT", "5"), WantErr: "WEBHOOKS_PER_ENDPOINT"},
	})
}
