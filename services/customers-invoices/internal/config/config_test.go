package config

import (
	"testing"

	"github.com/acctsuite/acct/pkg/exportfiles"
	"github.com/acctsuite/acct/pkg/servicekit/configtest"
	"github.com/acctsuite/acct/pkg/storage"
)

func TestLoad(t *testing.T) {
	cases := configtest.Kit("invoicing", func(c Config) configtest.Blocks {
		return configtest.Blocks{Base: c.Base, Data: c.Data, Auth: c.Auth}
	})
	cases = append(cases, configtest.Storage(func(c Config) storage.Optional { return c.Storage })...)
	cases = append(cases, configtest.Exports(func(c Config) exportfiles.Policy { return c.Exports })...)
	configtest.Run(t, LoadFrom, cases)
}
