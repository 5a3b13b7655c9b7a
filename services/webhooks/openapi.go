package webhooks

import _ "embed"

// OpenAPI is the service's OpenAPI 3 document (YAML).
//
//go:embed openapi.yaml
var OpenAPI []byte
