package acctsync

import (
	"bytes"
	"encoding/base64"
	"testing"

	"github.com/google/uuid"
)

// FuzzParseStateToken feeds arbitrary OAuth state values (what the
// provider's redirect echoes to the callback) to parseStateToken: a
// refusal is errBadState; an accepted token is exactly the base64url form
// of a business id and a secret, and re-encoding it gives it back.
func FuzzParseStateToken(f *testing.F) {
	tok, _, err := newStateToken(uuid.MustParse("0190c4c4-0000-7000-8000-000000000001"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(tok)
	f.Add(tok[:len(tok)-1])
	f.Add(tok + "A")
	f.Add(tok[:len(tok)-1] + "=")
	f.Add(tok[:len(tok)-1] + "+")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		bid, hash, err := parseStateToken(s)
		if err != nil {
			if err != errBadState {
				t.Fatalf("error %v is not errBadState", err)
			}
			return
		}
		raw, err := base64.RawURLEncoding.DecodeString(s)
		if err != nil || !bytes.Equal(raw[:16], bid[:]) || !bytes.Equal(hash, hashStateSecret(raw[16:])) {
			t.Fatalf("accepted %q as business %s", s, bid)
		}
		if again := base64.RawURLEncoding.EncodeToString(raw); again != s {
			t.Fatalf("accepted non-canonical state %q (canonical %q)", s, again)
		}
	})
}
