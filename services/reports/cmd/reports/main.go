// Command reports runs the reports service: the ledger's read model (from
// acct.ledger.v1) and the profit-and-loss report.
//
//	reports [serve]                       run the service (default)
//	reports migrate                       apply database migrations and exit
//	reports dlq replay                    re-deliver dead letters
//	reports rebuild --business ID|--all   recompute the read model from the service's journal copy
package main

import (
	"github.com/acctsuite/acct/pkg/servicekit"
	"github.com/acctsuite/acct/services/reports/internal/config"
	"github.com/acctsuite/acct/services/reports/internal/service"
)

func main() { servicekit.Main(servicekit.Loader(config.Load, service.New)) }
