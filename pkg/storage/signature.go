package storage

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// DownloadRoute is the gateway's public route serving the filesystem
// backend's pre-signed URLs (Fiber pattern; the key is the wildcard).
// DownloadPathPrefix is its literal prefix.
const (
	DownloadPathPrefix = "/v1/storage/objects/"
	DownloadRoute      = DownloadPathPrefix + "*"
)

// MinSigningKeyLength is the minimum length of the URL signing key: as long
// as the HMAC-SHA256 output, so the key is never the weak part.
const MinSigningKeyLength = 32

// Query parameters of a filesystem pre-signed URL.
const (
	paramExpires  = "expires"
	paramFilename = "filename"
	paramSig      = "sig"
)

// urlSigner makes and checks the filesystem backend's pre-signed URLs:
//
//	{base}/v1/storage/objects/{key}?expires={unix seconds}[&filename={name}]&sig={mac}
//
// where mac is base64url(HMAC-SHA256(signing key,
// "GET\n" + key + "\n" + expires + "\n" + filename)). Every part that
// changes what is served (key, lifetime, download name) is signed; the
// newlines cannot occur in any part, so the message is unambiguous.
type urlSigner struct {
	key []byte
}

func newURLSigner(key []byte) (urlSigner, error) {
	if len(key) < MinSigningKeyLength {
		return urlSigner{}, fmt.Errorf("storage: signing key must be at least %d bytes, got %d", MinSigningKeyLength, len(key))
	}
	return urlSigner{key: append([]byte(nil), key...)}, nil
}

func (s urlSigner) mac(key string, expires int64, filename string) []byte {
	m := hmac.New(sha256.New, s.key)
	// The method is fixed: HEAD is answered under a GET signature, as S3 does.
	fmt.Fprintf(m, "%s\n%s\n%d\n%s", http.MethodGet, key, expires, filename)
	return m.Sum(nil)
}

// sign returns the path and query of a URL for key valid until expires.
func (s urlSigner) sign(key string, expires time.Time, filename string) string {
	exp := expires.Unix()
	q := url.Values{}
	q.Set(paramExpires, strconv.FormatInt(exp, 10))
	if filename != "" {
		q.Set(paramFilename, filename)
	}
	q.Set(paramSig, base64.RawURLEncoding.EncodeToString(s.mac(key, exp, filename)))
	// Keys need no escaping (ValidateKey), so the path is the key itself.
	return DownloadPathPrefix + key + "?" + q.Encode()
}

// signatureProblem is why a request's signature is refused.
type signatureProblem int

const (
	signatureOK signatureProblem = iota
	signatureInvalid
	signatureExpired
)

// verify checks a request for key with the given query values at now. The
// signature is checked before the expiry, in constant time, so an expired
// answer reveals only that a genuine URL expired.
func (s urlSigner) verify(key, expires, filename, sig string, now time.Time) signatureProblem {
	if expires == "" || sig == "" || strings.ContainsAny(filename, "\n") {
		return signatureInvalid
	}
	exp, err := strconv.ParseInt(expires, 10, 64)
	if err != nil || strconv.FormatInt(exp, 10) != expires {
		return signatureInvalid
	}
	// Strict: the last character's unused bits must be zero, so exactly
	// one string is the signature (a lenient decoder accepts variants).
	got, err := base64.RawURLEncoding.Strict().DecodeString(sig)
	if err != nil {
		return signatureInvalid
	}
	if !hmac.Equal(got, s.mac(key, exp, filename)) {
		return signatureInvalid
	}
	if now.Unix() >= exp {
		return signatureExpired
	}
	return signatureOK
}
