// Command webhooks runs the webhooks service: platforms' endpoints,
// and the domain topics' changes delivered to them as signed webhooks.
//
//	webhooks [serve]      run the service (default)
//	webhooks migrate      apply database migrations and exit
//	webhooks dlq replay   re-deliver dead letters
package main

import (
	"os"

	"github.com/acctsuite/acct/pkg/servicekit"
	"github.com/acctsuite/acct/services/webhooks/internal/config"
	"github.com/acctsuite/acct/services/webhooks/internal/service"
)

func main() {
	service.TuneGC(os.LookupEnv)
	servicekit.Main(servicekit.Loader(config.Load, service.New))
}
