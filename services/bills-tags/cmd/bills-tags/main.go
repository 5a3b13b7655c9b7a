// Command bills-tags runs the bills & tags service: vendors, bills, bill
// payments and vendor credits, published on acct.bills.v1.
//
//	bills-tags [serve]      run the service (default)
//	bills-tags migrate      apply database migrations and exit
//	bills-tags dlq replay   re-deliver dead letters
package main

import (
	"github.com/acctsuite/acct/pkg/servicekit"
	"github.com/acctsuite/acct/services/bills-tags/internal/config"
	"github.com/acctsuite/acct/services/bills-tags/internal/service"
)

func main() { servicekit.Main(servicekit.Loader(config.Load, service.New)) }
