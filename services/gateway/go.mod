module github.com/acctsuite/acct/services/gateway

go 1.26
