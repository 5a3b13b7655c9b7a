module github.com/acctsuite/acct/services/auth-tokens

go 1.26
