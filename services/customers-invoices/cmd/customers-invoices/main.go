// Command customers-invoices runs the customers & invoices service:
// customers, invoices, invoice payments and write-offs, published on
// acct.invoicing.v1.
//
//	customers-invoices [serve]      run the service (default)
//	customers-invoices migrate      apply database migrations and exit
//	customers-invoices dlq replay   re-deliver dead letters
package main

import (
	"github.com/acctsuite/acct/pkg/servicekit"
	"github.com/acctsuite/acct/services/customers-invoices/internal/config"
	"github.com/acctsuite/acct/services/customers-invoices/internal/service"
)

func main() { servicekit.Main(servicekit.Loader(config.Load, service.New)) }
