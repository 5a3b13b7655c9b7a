package banking

import "testing"

// A bank transaction's metadata is stored as jsonb, which refuses NUL
// (\u0000), unpaired surrogate escapes and invalid UTF-8: refused with a
// reason (a 400), not left to the database (a 500).
func TestCheckMetadataStorable(t *testing.T) {
	for _, raw := range []string{`{"k":"a\u0000b"}`, `{"\u0000":1}`, `{"k":"\ud800"}`, "{\"k\":\"\xff\"}"} {
		if _, reason, ok := CheckMetadata([]byte(raw)); ok || reason == "" {
			t.Fatalf("%s accepted", raw)
		}
	}
	if _, _, ok := CheckMetadata([]byte(`{"k":"caf\u00e9"}`)); !ok {
		t.Fatal("valid metadata refused")
	}
}
