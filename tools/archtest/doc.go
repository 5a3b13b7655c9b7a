// Package archtest checks the import rules of the suite's architecture, so
// that `make test` (through `go test ./tools/...`) fails when a package
// reaches for a layer or a service it must not.
//
// Every production Go file of the repository is read with go/parser
// (imports only, no build, build constraints ignored); _test.go files and
// the directories the go tool ignores (testdata, vendor, names starting
// with "." or "_") are left out. Paths below are relative to the
// repository root (the folder of go.work), and a directory "contains" a
// path when it contains its elements, e.g. internal/app matches
// services/x/internal/app/sub but not services/x/internal/apidocs.
//
//  1. Domain: a package under services/ whose directory contains
//     internal/domain imports none of Fiber (github.com/gofiber/...), Bun
//     (github.com/uptrace/bun...), kafka-go (github.com/segmentio/kafka-go...)
//     or OpenTelemetry (go.opentelemetry.io/...).
//  2. Application: a package under services/ whose directory contains
//     internal/app imports neither Bun nor Fiber.
//  3. Services are independent: a file of services/<name> imports no
//     package of another service's module (github.com/acctsuite/acct/services/<other>/...,
//     the module path read from services/<other>/go.mod); services talk
//     over HTTP and events, and share code through pkg/.
//  4. pkg/ (module github.com/acctsuite/acct/pkg) imports no service.
//  5. tools/ and e2e/ (modules of go.work) import no service's packages:
//     they drive the services from outside, as binaries, over HTTP and the
//     broker.
//  6. HTTP adapters (a directory containing internal/adapters/http) import
//     no postgres adapter of their service (internal/adapters/postgres):
//     what both need, such as a collection's page spec, lives in app.
//
// Every rule is met. tools/archtest/known_violations.txt, empty, is where
// a new rule may list what it finds on the day it is added, as "<file>
// imports <import path>" lines; the list only shrinks: the test fails on a
// violation it does not list (naming the file, the import and the rule) and
// on a line that is no longer a violation (saying to delete it).
//
// Check(root, allow) does the work on any tree, so the tests also prove on
// a planted tree under t.TempDir() that each rule can fail.
package archtest
