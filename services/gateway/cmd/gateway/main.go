// Command gateway is the suite's edge: the single public base URL that
// authenticates, enforces tenancy and rate limits, and proxies to services.
//
// Usage: gateway [serve]
package main

import (
	"github.com/acctsuite/acct/pkg/servicekit"
	"github.com/acctsuite/acct/services/gateway/internal/config"
	"github.com/acctsuite/acct/services/gateway/internal/service"
)

func main() { servicekit.Main(servicekit.Loader(config.Load, service.New)) }
