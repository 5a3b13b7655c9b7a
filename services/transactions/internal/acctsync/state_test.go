package acctsync

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

func TestStateTokenRoundTrip(t *testing.T) {
	bid := uuid.New()
	tok, hash, err := newStateToken(bid)
	if err != nil {
		t.Fatal(err)
	}
	if len(tok) != stateTokenLen {
		t.Fatalf("token length %d, want %d", len(tok), stateTokenLen)
	}
	gotBID, gotHash, err := parseStateToken(tok)
	if err != nil {
		t.Fatal(err)
	}
	if gotBID != bid || !bytes.Equal(gotHash, hash) {
		t.Fatalf("parse = %s %x, want %s %x", gotBID, gotHash, bid, hash)
	}
	if bytes.Contains([]byte(tok), hash) || strings.Contains(tok, base64.RawURLEncoding.EncodeToString(hash)) {
		t.Fatal("the token contains its stored hash")
	}
	tok2, hash2, _ := newStateToken(bid)
	if tok2 == tok || bytes.Equal(hash2, hash) {
		t.Fatal("two states are equal")
	}
}

func TestParseStateTokenRejects(t *testing.T) {
	good, _, _ := newStateToken(uuid.New())
	for name, tok := range map[string]string{
		"empty":     "",
		"short":     good[:len(good)-1],
		"long":      good + "A",
		"bad chars": strings.Repeat("*", len(good)),
		"padding":   good[:len(good)-2] + "==",
	} {
		if _, _, err := parseStateToken(tok); err == nil {
			t.Errorf("%s: parse accepted %q", name, tok)
		}
	}
}

func TestCheckState(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	bid, other := uuid.New(), uuid.New()
	_, hash, _ := newStateToken(bid)
	st := State{Hash: hash, BusinessID: bid, CreatedAt: now, ExpiresAt: now.Add(10 * time.Minute)}
	tests := []struct {
		name  string
		bid   uuid.UUID
		hash  []byte
		at    time.Time
		valid bool
	}{
		{"valid", bid, hash, now.Add(9 * time.Minute), true},
		{"expired exactly", bid, hash, now.Add(10 * time.Minute), false},
		{"expired", bid, hash, now.Add(time.Hour), false},
		{"other business", other, hash, now, false},
		{"other hash", bid, hashStateSecret([]byte("x")), now, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := checkState(st, tt.bid, tt.hash, tt.at); (err == nil) != tt.valid {
				t.Fatalf("checkState = %v, valid %v", err, tt.valid)
			}
		})
	}
}
