// Package authtokens holds what belongs to the auth-tokens service as a
// whole: its embedded OpenAPI document.
package authtokens

import _ "embed"

// OpenAPI is the service's OpenAPI 3 document (YAML).
//
//go:embed openapi.yaml
var OpenAPI []byte
