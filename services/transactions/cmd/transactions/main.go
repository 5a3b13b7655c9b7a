// Command transactions runs the transactions service: bank transactions,
// categorization, the chart of accounts and the double-entry ledger.
//
//	transactions [serve]   run the service (default)
//	transactions migrate   apply database migrations and exit
//	transactions repair-entry-tags --business ID | --all
//	                       repost live entries that lack their transaction's tags
package main

import (
	"github.com/acctsuite/acct/pkg/servicekit"
	"github.com/acctsuite/acct/services/transactions/internal/config"
	"github.com/acctsuite/acct/services/transactions/internal/service"
)

func main() { servicekit.Main(servicekit.Loader(config.Load, service.New)) }
