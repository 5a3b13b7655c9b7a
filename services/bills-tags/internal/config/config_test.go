package config

import (
	"fmt"
	"testing"
	"time"

	"github.com/acctsuite/acct/pkg/servicekit/configtest"
	"github.com/acctsuite/acct/pkg/storage"
)

func TestLoad(t *testing.T) {
	cases := configtest.Kit("bills", func(c Config) configtest.Blocks {
		return configtest.Blocks{Base: c.Base, Data: c.Data, Auth: c.Auth}
	})
	cases = append(cases, configtest.Storage(func(c Config) storage.Optional { return c.Storage })...)
	cases = append(cases,
		configtest.Case[Config]{Name: "receipt reading defaults", Env: configtest.Env(), Check: func(c Config) error {
			x := c.Extractor()
			if x.Timeout != 2*time.Minute || x.Workers != 2 || x.MaxQueued != 16 || x.MaxWait != 30*time.Second {
				return fmt.Errorf("extractor %+v", x)
			}
			return nil
		}},
		configtest.Case[Config]{Name: "receipt reading set", Env: configtest.Env("RECEIPTS_IMPORT_TIMEOUT", "5s", "RECEIPTS_WORKERS", "4",
			"RECEIPTS_MAX_QUEUED", "3", "RECEIPTS_MAX_WAIT", "2s", "IDEMPOTENCY_IN_PROGRESS_TIMEOUT", "15s"), Check: func(c Config) error {
			x := c.Extractor()
			if x.Timeout != 5*time.Second || x.Workers != 4 || x.MaxQueued != 3 || x.MaxWait != 2*time.Second {
				return fmt.Errorf("extractor %+v", x)
			}
			return nil
		}},
		configtest.Case[Config]{Name: "an import shorter than the default wait", Env: configtest.Env("RECEIPTS_IMPORT_TIMEOUT", "5s",
			"IDEMPOTENCY_IN_PROGRESS_TIMEOUT", "15s"), Check: func(c Config) error {
			if x := c.Extractor(); x.Timeout != 5*time.Second || x.MaxWait != 30*time.Second {
				return fmt.Errorf("extractor %+v", x)
			}
			return nil
		}},
		configtest.Case[Config]{Name: "no wait", Env: configtest.Env("RECEIPTS_MAX_WAIT", "0s"), WantErr: "RECEIPTS_MAX_WAIT must be between"},
		configtest.Case[Config]{Name: "no workers", Env: configtest.Env("RECEIPTS_WORKERS", "0"), WantErr: "RECEIPTS_WORKERS must be between 1 and 64"},
		configtest.Case[Config]{Name: "no queue", Env: configtest.Env("RECEIPTS_MAX_QUEUED", "0"), WantErr: "RECEIPTS_MAX_QUEUED"},
	)
	configtest.Run(t, LoadFrom, cases)
}
