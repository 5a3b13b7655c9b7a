// Package webhooksig signs and verifies webhook deliveries with the
// Standard Webhooks scheme (https://www.standardwebhooks.com,
// spec/standard-webhooks.md of github.com/standard-webhooks/standard-webhooks).
//
// The suite's webhooks service signs every outbound delivery with it, and
// a receiver verifies a delivery either with this package or with any
// Standard Webhooks library, or by hand from this description:
//
//   - Each delivery is an HTTP POST carrying three headers:
//     webhook-id (the delivery's unique id, stable across retries, to use
//     as an idempotency key), webhook-timestamp (unix seconds of the
//     attempt) and webhook-signature.
//   - webhook-signature is a space-separated list of "v1,<signature>",
//     where <signature> is the standard (padded) base64 encoding of
//     HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<raw body>").
//     There is one entry per signing secret: during a secret rotation the
//     service signs with both the new and the previous secret, so a
//     receiver accepts the delivery when any v1 entry matches. Entries of
//     other versions (such as v1a, asymmetric) are ignored.
//   - A secret is written "whsec_" followed by the base64 of the key bytes;
//     the key is the decoded bytes, not the text.
//   - A receiver must compute the HMAC over the body exactly as received
//     (not re-encoded JSON), compare in constant time, and refuse a
//     timestamp more than a few minutes (DefaultTolerance) from its clock
//     to limit replays.
package webhooksig

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Header names of the scheme.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// SecretPrefix marks a serialized secret.
const SecretPrefix = "whsec_"

// DefaultTolerance is how far a delivery's timestamp may be from the
// receiver's clock, in either direction, before it is refused. Verify uses
// it when given a tolerance of zero or less.
const DefaultTolerance = 5 * time.Minute

// secretKeyBytes is the key length NewSecret draws: 192 bits, the length
// the reference implementations generate.
const secretKeyBytes = 24

// versionV1 is the signature identifier of the symmetric (HMAC-SHA256)
// scheme.
const versionV1 = "v1"

// Sentinel errors, to be tested with errors.Is; the returned errors wrap
// them with detail.
var (
	// ErrMissingHeaders: webhook-id, webhook-timestamp or
	// webhook-signature is absent or empty.
	ErrMissingHeaders = errors.New("webhooksig: missing webhook headers")
	// ErrNoSignature: the signature header holds no v1 signature.
	ErrNoSignature = errors.New("webhooksig: no v1 signature")
	// ErrBadSignature: no v1 signature matches the secret.
	ErrBadSignature = errors.New("webhooksig: signature does not match")
	// ErrTimestamp: the timestamp is not unix seconds, or is outside the
	// tolerance.
	ErrTimestamp = errors.New("webhooksig: timestamp invalid or outside tolerance")
	// ErrInvalidSecret: the secret is empty or not base64.
	ErrInvalidSecret = errors.New("webhooksig: invalid secret")
)

// NewSecret returns a new random secret, "whsec_" followed by the base64
// of 24 bytes from crypto/rand.
func NewSecret() (string, error) {
	key := make([]byte, secretKeyBytes)
	if _, err := rand.Read(key); err != nil {
		return "", fmt.Errorf("webhooksig: new secret: %w", err)
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(key), nil
}

// ParseSecret returns the key bytes of a secret, given with or without the
// "whsec_" prefix (surrounding spaces are ignored, for secrets pasted into
// environment variables).
func ParseSecret(s string) ([]byte, error) {
	s = strings.TrimPrefix(strings.TrimSpace(s), SecretPrefix)
	if s == "" {
		return nil, fmt.Errorf("%w: empty", ErrInvalidSecret)
	}
	key, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%w: not standard base64 after the %q prefix: %v", ErrInvalidSecret, SecretPrefix, err)
	}
	if len(key) == 0 {
		return nil, fmt.Errorf("%w: empty key", ErrInvalidSecret)
	}
	return key, nil
}

// Sign returns the signature "v1,<base64>" of one delivery under secret.
//
// The id must be non-empty and free of '.', spaces and control
// characters: '.' delimits the signed content (the specification asks that
// ids never contain it), and the others cannot travel in a header. The
// timestamp must not be before 1970.
func Sign(secret string, id string, ts time.Time, body []byte) (string, error) {
	key, err := ParseSecret(secret)
	if err != nil {
		return "", err
	}
	if err := checkID(id); err != nil {
		return "", err
	}
	if ts.Unix() < 0 {
		return "", fmt.Errorf("webhooksig: timestamp %s is before 1970", ts.UTC().Format(time.RFC3339))
	}
	mac := computeMAC(key, id, strconv.FormatInt(ts.Unix(), 10), body)
	return versionV1 + "," + base64.StdEncoding.EncodeToString(mac), nil
}

// SignatureHeader returns the webhook-signature value: one signature per
// secret, space-separated, in the order given (the current secret first,
// then, during a rotation, the previous one).
func SignatureHeader(secrets []string, id string, ts time.Time, body []byte) (string, error) {
	if len(secrets) == 0 {
		return "", fmt.Errorf("%w: no secret to sign with", ErrInvalidSecret)
	}
	sigs := make([]string, 0, len(secrets))
	for i, s := range secrets {
		sig, err := Sign(s, id, ts, body)
		if err != nil {
			return "", fmt.Errorf("secret %d: %w", i, err)
		}
		sigs = append(sigs, sig)
	}
	return strings.Join(sigs, " "), nil
}

// Verify checks a delivery's headers against its raw body: the signature
// under secret and the timestamp within tolerance of now (DefaultTolerance
// when tolerance <= 0). It returns nil for an authentic, fresh delivery,
// otherwise an error wrapping ErrMissingHeaders, ErrTimestamp,
// ErrNoSignature, ErrBadSignature or ErrInvalidSecret.
func Verify(secret string, h http.Header, body []byte, now time.Time, tolerance time.Duration) error {
	return VerifyValues(secret, h.Get(HeaderID), h.Get(HeaderTimestamp), h.Get(HeaderSignature), body, now, tolerance)
}

// VerifyValues is Verify over the three header values given as strings,
// for receivers whose framework does not expose an http.Header.
//
// The signature is checked before the timestamp's distance from now, so
// ErrTimestamp for a well-formed timestamp means the delivery was signed
// with the secret but is stale or from the future (a replay, a late retry
// or a skewed clock).
func VerifyValues(secret, id, timestamp, signature string, body []byte, now time.Time, tolerance time.Duration) error {
	if id == "" || timestamp == "" || signature == "" {
		var missing []string
		for _, hv := range [][2]string{{HeaderID, id}, {HeaderTimestamp, timestamp}, {HeaderSignature, signature}} {
			if hv[1] == "" {
				missing = append(missing, hv[0])
			}
		}
		return fmt.Errorf("%w: %s", ErrMissingHeaders, strings.Join(missing, ", "))
	}
	key, err := ParseSecret(secret)
	if err != nil {
		return err
	}
	sent, err := parseTimestamp(timestamp)
	if err != nil {
		return err
	}
	sigs := parseSignatures(signature)
	if len(sigs) == 0 {
		return fmt.Errorf("%w among %d entries", ErrNoSignature, len(strings.Fields(signature)))
	}
	// The raw header text is what the sender signed.
	want := computeMAC(key, id, timestamp, body)
	matched := false
	for _, sig := range sigs {
		// Every entry is compared, without stopping at a match, so the time
		// taken does not depend on which entry matched.
		if hmac.Equal(sig, want) {
			matched = true
		}
	}
	if !matched {
		return fmt.Errorf("%w (%d v1 signatures checked)", ErrBadSignature, len(sigs))
	}
	if tolerance <= 0 {
		tolerance = DefaultTolerance
	}
	// Sub saturates instead of overflowing for absurd timestamps.
	if d := now.Sub(sent); d > tolerance || d < -tolerance {
		return fmt.Errorf("%w: %s is %s from now, tolerance %s", ErrTimestamp, timestamp, d.Round(time.Second), tolerance)
	}
	return nil
}

// parseTimestamp reads webhook-timestamp: unsigned decimal unix seconds.
func parseTimestamp(s string) (time.Time, error) {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return time.Time{}, fmt.Errorf("%w: %q is not unix seconds", ErrTimestamp, s)
		}
	}
	sec, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: %q: %v", ErrTimestamp, s, err)
	}
	return time.Unix(sec, 0), nil
}

// parseSignatures returns the decoded v1 signatures of a webhook-signature
// value. Entries of other versions are skipped. A v1 entry that is not
// canonical base64 is kept as an empty signature, which matches nothing,
// so that a header of only broken v1 entries reports ErrBadSignature
// rather than ErrNoSignature.
func parseSignatures(header string) [][]byte {
	var sigs [][]byte
	for _, entry := range strings.Fields(header) {
		version, encoded, ok := strings.Cut(entry, ",")
		if !ok || version != versionV1 {
			continue
		}
		// Strict rejects non-zero padding bits, so each MAC has exactly one
		// accepted spelling.
		sig, err := base64.StdEncoding.Strict().DecodeString(encoded)
		if err != nil || len(sig) != sha256.Size {
			sig = []byte{}
		}
		sigs = append(sigs, sig)
	}
	return sigs
}

func computeMAC(key []byte, id, timestamp string, body []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id))
	m.Write([]byte{'.'})
	m.Write([]byte(timestamp))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

func checkID(id string) error {
	if id == "" {
		return errors.New("webhooksig: empty webhook id")
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c == '.' || c <= ' ' || c == 0x7f {
			return fmt.Errorf("webhooksig: webhook id %q contains %q", id, c)
		}
	}
	return nil
}
