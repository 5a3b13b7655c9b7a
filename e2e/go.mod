module github.com/acctsuite/acct/e2e

go 1.26
