// Package transactions holds what belongs to the transactions service as a
// whole: its embedded OpenAPI document.
package transactions

import _ "embed"

// OpenAPI is the service's OpenAPI 3 document (YAML).
//
//go:embed openapi.yaml
var OpenAPI []byte
