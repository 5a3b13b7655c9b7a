package config

import (
	"testing"

	"github.com/acctsuite/acct/pkg/servicekit/configtest"
)

func TestLoad(t *testing.T) {
	cases := configtest.Kit("mileage", func(c Config) configtest.Blocks {
		return configtest.Blocks{Base: c.Base, Data: c.Data, Auth: c.Auth}
	})
	configtest.Run(t, LoadFrom, append(cases, configtest.WithoutStorage[Config]()))
}
