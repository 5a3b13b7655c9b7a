package credentials

import (
	"bytes"
	"fmt"
	"testing"

	"golang.org/x/crypto/argon2"
)

// FuzzDecode feeds arbitrary stored hashes to decode (the PHC string
// Verify reads back from the clients table): a malformed one is
// ErrMalformedHash, never a panic; an accepted one keeps its cost within
// the bounds (memory ≤ 2 GiB, time ≤ 100) and re-encodes to a string that
// decodes to the same parameters, salt and key.
func FuzzDecode(f *testing.F) {
	salt, key := b64.EncodeToString([]byte("0123456789abcdef")), b64.EncodeToString(bytes.Repeat([]byte{7}, 32))
	f.Add(fmt.Sprintf("$argon2id$v=%d$m=19456,t=2,p=1$%s$%s", argon2.Version, salt, key))
	f.Add(fmt.Sprintf("$argon2id$v=%d$m=2097153,t=2,p=1$%s$%s", argon2.Version, salt, key))
	f.Add(fmt.Sprintf("$argon2id$v=%d$m=8,t=101,p=1$%s$%s", argon2.Version, salt, key))
	f.Add(fmt.Sprintf("$argon2id$v=%d$m=8,t=1,p=0$%s$%s", argon2.Version, salt, key))
	f.Add(fmt.Sprintf("$argon2i$v=%d$m=8,t=1,p=1$%s$%s", argon2.Version, salt, key))
	f.Add(fmt.Sprintf("$argon2id$v=16$m=8,t=1,p=1$%s$%s", salt, key))
	f.Add(fmt.Sprintf("$argon2id$v=%d$m=8,t=1,p=1$c2FsdA$%s", argon2.Version, key))
	f.Add(fmt.Sprintf("$argon2id$v=%d$m=-1,t=1,p=1$%s$%s", argon2.Version, salt, key))
	f.Add("$argon2id$$$$")
	f.Add("")
	f.Fuzz(func(t *testing.T, encoded string) {
		p, s, k, err := decode(encoded)
		if err != nil {
			if err != ErrMalformedHash {
				t.Fatalf("decode error %v is not ErrMalformedHash", err)
			}
			return
		}
		if p.Memory == 0 || p.Memory > 1<<21 || p.Time == 0 || p.Time > 100 || p.Threads == 0 || len(s) < 8 || len(k) < 16 {
			t.Fatalf("accepted %q with params %+v, salt %d, key %d bytes", encoded, p, len(s), len(k))
		}
		again := fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.Memory, p.Time, p.Threads, b64.EncodeToString(s), b64.EncodeToString(k))
		p2, s2, k2, err := decode(again)
		if err != nil || p2 != p || !bytes.Equal(s2, s) || !bytes.Equal(k2, k) {
			t.Fatalf("re-encoded %q decodes to %+v %x %x (%v)", again, p2, s2, k2, err)
		}
	})
}
