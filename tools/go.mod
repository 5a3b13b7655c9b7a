module github.com/acctsuite/acct/tools

go 1.26
