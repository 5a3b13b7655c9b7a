// Command mileage runs the mileage service: vehicles, trips and the
// mileage summary, published on acct.mileage.v1.
//
//	mileage [serve]      run the service (default)
//	mileage migrate      apply database migrations and exit
//	mileage dlq replay   re-deliver dead letters
package main

import (
	"github.com/acctsuite/acct/pkg/servicekit"
	"github.com/acctsuite/acct/services/mileage/internal/config"
	"github.com/acctsuite/acct/services/mileage/internal/service"
)

func main() { servicekit.Main(servicekit.Loader(config.Load, service.New)) }
