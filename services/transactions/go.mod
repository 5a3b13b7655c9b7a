module github.com/acctsuite/acct/services/transactions

go 1.26.8

require (
	github.com/acctsuite/acct/pkg v0.0.0-00010101000000-000000000000
	github.com/google/uuid v1.6.0
)

require golang.org/x/text v0.43.0 // indirect

replace github.com/acctsuite/acct/pkg => ../../pkg
