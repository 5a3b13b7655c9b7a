// Command auth-tokens runs the auth-tokens service.
//
//	auth-tokens [serve]                       run the service (default)
//	auth-tokens migrate                       apply database migrations and exit
//	auth-tokens admin create-client --name N  create a platform client; prints its id and secret once
package main

import (
	"github.com/acctsuite/acct/pkg/servicekit"
	"github.com/acctsuite/acct/services/auth-tokens/internal/config"
	"github.com/acctsuite/acct/services/auth-tokens/internal/service"
)

func main() { servicekit.Main(servicekit.Loader(config.Load, service.New)) }
