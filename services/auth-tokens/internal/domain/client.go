// Package domain holds the auth-tokens entities and their rules: platform
// clients and the businesses they own. It knows nothing about HTTP, SQL or
// Kafka; constructors validate, so an invalid entity cannot exist.
package domain

import (
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/acctsuite/acct/pkg/apperr"
)

// clientIDPattern allows generated UUIDs and readable bootstrap ids ("demo").
var clientIDPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// MaxNameLength bounds client and legal names (characters).
const MaxNameLength = 255

// Client is a platform client: the holder of client credentials.
type Client struct {
	ID         string
	Name       string
	SecretHash string // PHC-encoded argon2id hash, never the secret
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// ValidClientID reports whether id is an acceptable client id.
func ValidClientID(id string) bool { return clientIDPattern.MatchString(id) }

// NewClient validates and builds a client.
func NewClient(id, name, secretHash string, now time.Time) (Client, error) {
	fields := map[string]string{}
	if !ValidClientID(id) {
		fields["client_id"] = "must be 1 to 64 characters of A-Z a-z 0-9 . _ -"
	}
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > MaxNameLength {
		fields["name"] = "is required, at most 255 characters"
	}
	if secretHash == "" {
		fields["secret"] = "is required"
	}
	if len(fields) > 0 {
		return Client{}, apperr.FieldErrors(apperr.InvalidParameters, fields)
	}
	return Client{ID: id, Name: name, SecretHash: secretHash, CreatedAt: now, UpdatedAt: now}, nil
}
