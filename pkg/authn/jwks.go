package authn

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
)

// JWK is one public key of a JWKS. Only OKP/Ed25519 keys are produced and
// understood; we parse them ourselves because the suite needs nothing else and
// keyfunc/v3's current jwkset dependency is not available from our proxy.
type JWK struct {
	Kty string `json:"kty"`
	Crv string `json:"crv,omitempty"`
	X   string `json:"x,omitempty"`
	Kid string `json:"kid"`
	Use string `json:"use,omitempty"`
	Alg string `json:"alg,omitempty"`
}

// JWKS is the document served at /.well-known/jwks.json (RFC 7517).
type JWKS struct {
	Keys []JWK `json:"keys"`
}

// PublicJWK describes an Ed25519 verification key (RFC 8037).
func PublicJWK(kid string, pub ed25519.PublicKey) JWK {
	return JWK{
		Kty: "OKP",
		Crv: "Ed25519",
		X:   base64.RawURLEncoding.EncodeToString(pub),
		Kid: kid,
		Use: "sig",
		Alg: Algorithm,
	}
}

// ParseJWKS decodes a JWKS document into its Ed25519 signature keys by kid.
// Keys of other types or uses are skipped (a shared JWKS may hold them);
// a malformed Ed25519 key or a duplicate kid is an error.
func ParseJWKS(data []byte) (map[string]ed25519.PublicKey, error) {
	var set JWKS
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, fmt.Errorf("authn: decode jwks: %w", err)
	}
	return set.PublicKeys()
}

// PublicKeys returns the set's Ed25519 signature keys by kid (see ParseJWKS).
func (s JWKS) PublicKeys() (map[string]ed25519.PublicKey, error) {
	keys := make(map[string]ed25519.PublicKey, len(s.Keys))
	for _, k := range s.Keys {
		if k.Kty != "OKP" || k.Crv != "Ed25519" {
			continue
		}
		if (k.Use != "" && k.Use != "sig") || (k.Alg != "" && k.Alg != Algorithm) {
			continue
		}
		if k.Kid == "" {
			return nil, fmt.Errorf("authn: jwks: ed25519 key without kid")
		}
		raw, err := base64.RawURLEncoding.DecodeString(k.X)
		if err != nil || len(raw) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("authn: jwks: key %q: invalid x", k.Kid)
		}
		if _, dup := keys[k.Kid]; dup {
			return nil, fmt.Errorf("authn: jwks: duplicate kid %q", k.Kid)
		}
		keys[k.Kid] = ed25519.PublicKey(raw)
	}
	return keys, nil
}
