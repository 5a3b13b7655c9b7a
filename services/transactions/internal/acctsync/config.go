package acctsync

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode"
)

// Config is the acctsync block of the transactions service's configuration
// (embed it in the service's Config; pkg/config fills and validates it).
// The defaults are Intuit's production endpoints for QuickBooks Online.
// Without ACCTSYNC_CLIENT_ID acctsync is off: authorize and the callback
// answer 503, reading imported accounts still works.
type Config struct {
	AuthURL    string `env:"ACCTSYNC_AUTH_URL" envDefault:"https://appcenter.intuit.com/connect/oauth2"`
	TokenURL   string `env:"ACCTSYNC_TOKEN_URL" envDefault:"https://oauth.platform.intuit.com/oauth2/v1/tokens/bearer"`
	APIBaseURL string `env:"ACCTSYNC_API_BASE_URL" envDefault:"https://quickbooks.api.intuit.com"`
	// RevokeURL is where unlinking revokes the connection's tokens.
	RevokeURL string `env:"ACCTSYNC_REVOKE_URL" envDefault:"https://developer.api.intuit.com/v2/oauth2/tokens/revoke"`

	ClientID     string `env:"ACCTSYNC_CLIENT_ID"`
	ClientSecret string `env:"ACCTSYNC_CLIENT_SECRET"`
	// RedirectURL is the public URL of GET /v1/acctsync/callback, exactly
	// as registered with the provider.
	RedirectURL string `env:"ACCTSYNC_REDIRECT_URL"`
	// ScopeList is space- or comma-separated.
	ScopeList string `env:"ACCTSYNC_SCOPES" envDefault:"com.intuit.quickbooks.accounting"`

	// TokenEncryptionKey is base64 of 32 random bytes (AES-256-GCM key of
	// the provider tokens at rest). Required when ACCTSYNC_CLIENT_ID is set.
	TokenEncryptionKey string `env:"ACCTSYNC_TOKEN_ENCRYPTION_KEY"`

	// SuccessURL, when set, is where the callback redirects the browser
	// (303) after a successful connection, with acctsync=connected,
	// business_id and realm_id added to its query. Unset: the callback
	// answers JSON.
	SuccessURL string `env:"ACCTSYNC_SUCCESS_URL"`

	StateTTL      time.Duration `env:"ACCTSYNC_STATE_TTL" envDefault:"10m"`
	HTTPTimeout   time.Duration `env:"ACCTSYNC_HTTP_TIMEOUT" envDefault:"30s"`
	QueryPageSize int           `env:"ACCTSYNC_QUERY_PAGE_SIZE" envDefault:"1000"`

	encryptionKey []byte
}

// MaxQueryPageSize is QuickBooks Online's largest maxresults.
const MaxQueryPageSize = 1000

// Enabled reports whether acctsync is configured (a client id is set).
func (c Config) Enabled() bool { return strings.TrimSpace(c.ClientID) != "" }

// Scopes is ACCTSYNC_SCOPES split on spaces and commas.
func (c Config) Scopes() []string {
	return strings.FieldsFunc(c.ScopeList, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
}

// EncryptionKey is the decoded ACCTSYNC_TOKEN_ENCRYPTION_KEY (after
// Validate; nil when acctsync is off).
func (c Config) EncryptionKey() []byte { return c.encryptionKey }

// Validate checks the block. Disabled, only the shape of the always-used
// values is checked; enabled, every credential must be present.
func (c *Config) Validate() error {
	var errs []error
	if c.StateTTL < time.Minute || c.StateTTL > time.Hour {
		errs = append(errs, fmt.Errorf("ACCTSYNC_STATE_TTL must be between 1m and 1h, got %s", c.StateTTL))
	}
	if c.HTTPTimeout <= 0 {
		errs = append(errs, fmt.Errorf("ACCTSYNC_HTTP_TIMEOUT must be positive, got %s", c.HTTPTimeout))
	}
	if c.QueryPageSize < 1 || c.QueryPageSize > MaxQueryPageSize {
		errs = append(errs, fmt.Errorf("ACCTSYNC_QUERY_PAGE_SIZE must be between 1 and %d, got %d", MaxQueryPageSize, c.QueryPageSize))
	}
	if c.SuccessURL != "" {
		if err := absoluteURL(c.SuccessURL); err != nil {
			errs = append(errs, fmt.Errorf("ACCTSYNC_SUCCESS_URL %w", err))
		}
	}
	if !c.Enabled() {
		return errors.Join(errs...)
	}
	for _, u := range []struct{ name, value string }{
		{"ACCTSYNC_AUTH_URL", c.AuthURL}, {"ACCTSYNC_TOKEN_URL", c.TokenURL},
		{"ACCTSYNC_API_BASE_URL", c.APIBaseURL}, {"ACCTSYNC_REDIRECT_URL", c.RedirectURL},
		{"ACCTSYNC_REVOKE_URL", c.RevokeURL},
	} {
		if err := absoluteURL(u.value); err != nil {
			errs = append(errs, fmt.Errorf("%s %w", u.name, err))
		}
	}
	if c.ClientSecret == "" {
		errs = append(errs, errors.New("ACCTSYNC_CLIENT_SECRET is required when ACCTSYNC_CLIENT_ID is set"))
	}
	if len(c.Scopes()) == 0 {
		errs = append(errs, errors.New("ACCTSYNC_SCOPES must name at least one scope"))
	}
	if c.TokenEncryptionKey == "" {
		errs = append(errs, errors.New("ACCTSYNC_TOKEN_ENCRYPTION_KEY is required when ACCTSYNC_CLIENT_ID is set"))
	} else if key, err := ParseEncryptionKey(c.TokenEncryptionKey); err != nil {
		errs = append(errs, fmt.Errorf("ACCTSYNC_TOKEN_ENCRYPTION_KEY: %w", err))
	} else {
		c.encryptionKey = key
	}
	return errors.Join(errs...)
}

// absoluteURL requires an absolute http(s) URL.
func absoluteURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("must be an absolute http(s) URL, got %q", s)
	}
	return nil
}
