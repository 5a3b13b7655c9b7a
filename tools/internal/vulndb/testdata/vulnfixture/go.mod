// A module that calls a function with a known vulnerability, so that the
// govulncheck test proves `make vulncheck` can fail: golang.org/x/text
// v0.3.6's language.Parse has GO-2021-0113 (out-of-bounds read, fixed in
// v0.3.7). Not part of the workspace (go.work) and never built by ./... .
module example.com/vulnfixture

go 1.26

require golang.org/x/text v0.3.6
