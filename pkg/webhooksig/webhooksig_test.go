package webhooksig

import (
	"bytes"
	"encoding/base64"
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// vector is one known secret/id/timestamp/body → signature triple.
type vector struct {
	name      string
	secret    string
	id        string
	unix      int64
	body      string
	signature string
}

// Known answers from github.com/standard-webhooks/standard-webhooks at
// commit b2fa7b8719fb75d326b591077f5d1b385cfcdfae:
//   - "reference": TestWebhookSign in libraries/go/webhook_test.go; the same
//     triple is the sign test of the javascript (src/webhook.test.ts),
//     python (tests/test_webhooks.py), php, ruby, java and csharp libraries.
//   - "rust": test_sign in libraries/rust/src/lib.rs.
var vectors = []vector{
	{
		name:      "reference",
		secret:    "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
		id:        "msg_p5jXN8AQM9LWM0D4loKWxJek",
		unix:      1614265330,
		body:      `{"test": 2432232314}`,
		signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
	},
	{
		name:      "rust",
		secret:    "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD",
		id:        "msg_27UH4WbU6Z5A5EzD8u03UvzRbpk",
		unix:      1649367553,
		body:      `{"email":"test@example.com","username":"test_user"}`,
		signature: "v1,tZ1I4/hDygAJgO5TYxiSd6Sd0kDW6hPenDe+bTa3Kkw=",
	},
}

func TestSignKnownVectors(t *testing.T) {
	for _, v := range vectors {
		t.Run(v.name, func(t *testing.T) {
			ts := time.Unix(v.unix, 0)
			for _, secret := range []string{v.secret, strings.TrimPrefix(v.secret, SecretPrefix)} {
				got, err := Sign(secret, v.id, ts, []byte(v.body))
				if err != nil {
					t.Fatalf("Sign(%q): %v", secret, err)
				}
				if got != v.signature {
					t.Fatalf("Sign(%q) = %q, want %q", secret, got, v.signature)
				}
			}
			h := header(v.id, strconv.FormatInt(v.unix, 10), v.signature)
			if err := Verify(v.secret, h, []byte(v.body), ts.Add(30*time.Second), 0); err != nil {
				t.Fatalf("Verify of the known signature: %v", err)
			}
		})
	}
}

func header(id, ts, sig string) http.Header {
	h := http.Header{}
	if id != "" {
		h.Set(HeaderID, id)
	}
	if ts != "" {
		h.Set(HeaderTimestamp, ts)
	}
	if sig != "" {
		h.Set(HeaderSignature, sig)
	}
	return h
}

func TestVerify(t *testing.T) {
	v := vectors[0]
	good := v.signature
	ts := time.Unix(v.unix, 0)
	tsText := strconv.FormatInt(v.unix, 10)
	otherSecret, err := NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	// Signatures of the reference library's tests that match nothing here.
	const wrongV1 = "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc="
	const wrongV2 = "v2,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc="

	tests := []struct {
		name      string
		secret    string
		id        string
		timestamp string
		signature string
		body      string
		now       time.Time
		tolerance time.Duration
		want      error
	}{
		{name: "good signature", want: nil},
		{name: "prefix-less secret", secret: strings.TrimPrefix(v.secret, SecretPrefix), want: nil},
		{name: "one of several signatures valid", signature: strings.Join([]string{wrongV1, wrongV2, good, wrongV1}, " "), want: nil},
		{name: "unknown version prefix ignored", signature: "v1a,hnO3f9T8Ytu9HwrXslvumlUpqtNVqkhqw/enGzPCXe5BdqzCInXqYXFymVJaA7AZdpXwVLPo3mNl8EM+m7TBAg== " + good, want: nil},
		{name: "extra whitespace between entries", signature: "  " + wrongV1 + " \t " + good + "  ", want: nil},
		{name: "only unknown versions", signature: wrongV2 + " v1a,abc", want: ErrNoSignature},
		{name: "no comma", signature: "g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=", want: ErrNoSignature},
		{name: "wrong signature", signature: wrongV1, want: ErrBadSignature},
		{name: "partial signature", signature: "v1,", want: ErrBadSignature},
		{name: "truncated signature", signature: good[:20], want: ErrBadSignature},
		{name: "non-canonical base64 of the right MAC", signature: strings.Replace(good, "1OE=", "1OF=", 1), want: ErrBadSignature},
		{name: "tampered body", body: `{"test": 2432232315}`, want: ErrBadSignature},
		{name: "body with a trailing newline", body: v.body + "\n", want: ErrBadSignature},
		{name: "tampered id", id: "msg_p5jXN8AQM9LWM0D4loKWxJel", want: ErrBadSignature},
		{name: "tampered timestamp", timestamp: strconv.FormatInt(v.unix+1, 10), want: ErrBadSignature},
		{name: "wrong secret", secret: otherSecret, want: ErrBadSignature},
		{name: "wrong secret and old timestamp reports the signature", secret: otherSecret, now: ts.Add(time.Hour), want: ErrBadSignature},
		{name: "old timestamp", now: ts.Add(DefaultTolerance + time.Second), want: ErrTimestamp},
		{name: "future timestamp", now: ts.Add(-DefaultTolerance - time.Second), want: ErrTimestamp},
		{name: "at the tolerance edge, old", now: ts.Add(DefaultTolerance), want: nil},
		{name: "at the tolerance edge, future", now: ts.Add(-DefaultTolerance), want: nil},
		{name: "custom tolerance", now: ts.Add(11 * time.Second), tolerance: 10 * time.Second, want: ErrTimestamp},
		{name: "custom tolerance within", now: ts.Add(9 * time.Second), tolerance: 10 * time.Second, want: nil},
		{name: "replayed a year later", now: ts.AddDate(1, 0, 0), want: ErrTimestamp},
		{name: "not a number", timestamp: "hello", want: ErrTimestamp},
		{name: "negative timestamp", timestamp: "-1614265330", want: ErrTimestamp},
		{name: "signed timestamp", timestamp: "+1614265330", want: ErrTimestamp},
		{name: "fractional timestamp", timestamp: "1614265330.5", want: ErrTimestamp},
		{name: "timestamp overflow", timestamp: "99999999999999999999", want: ErrTimestamp},
		{name: "missing id", id: "-", want: ErrMissingHeaders},
		{name: "missing timestamp", timestamp: "-", want: ErrMissingHeaders},
		{name: "missing signature", signature: "-", want: ErrMissingHeaders},
		{name: "empty secret", secret: "whsec_", want: ErrInvalidSecret},
		{name: "secret not base64", secret: "whsec_not*base64", want: ErrInvalidSecret},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			secret, id, timestamp, signature, body := v.secret, v.id, tsText, good, v.body
			now := ts.Add(2 * time.Second)
			if tc.secret != "" {
				secret = tc.secret
			}
			if tc.id != "" {
				id = tc.id
			}
			if tc.timestamp != "" {
				timestamp = tc.timestamp
			}
			if tc.signature != "" {
				signature = tc.signature
			}
			if tc.body != "" {
				body = tc.body
			}
			if !tc.now.IsZero() {
				now = tc.now
			}
			// "-" stands for an absent header.
			for _, p := range []*string{&id, &timestamp, &signature} {
				if *p == "-" {
					*p = ""
				}
			}
			err := Verify(secret, header(id, timestamp, signature), []byte(body), now, tc.tolerance)
			check(t, "Verify", err, tc.want)
			err = VerifyValues(secret, id, timestamp, signature, []byte(body), now, tc.tolerance)
			check(t, "VerifyValues", err, tc.want)
		})
	}
}

func check(t *testing.T, what string, err, want error) {
	t.Helper()
	if want == nil {
		if err != nil {
			t.Fatalf("%s: unexpected error %v", what, err)
		}
		return
	}
	if !errors.Is(err, want) {
		t.Fatalf("%s: error %v, want one wrapping %v", what, err, want)
	}
}

// TestVerifyExtremeTimes checks the tolerance arithmetic where a plain
// subtraction of unix seconds would overflow.
func TestVerifyExtremeTimes(t *testing.T) {
	v := vectors[0]
	for _, unix := range []int64{0, 1 << 62, math.MaxInt64} {
		ts := time.Unix(unix, 0)
		sig, err := Sign(v.secret, v.id, ts, []byte(v.body))
		if err != nil {
			t.Fatal(err)
		}
		h := header(v.id, strconv.FormatInt(unix, 10), sig)
		if err := Verify(v.secret, h, []byte(v.body), ts, 0); err != nil {
			t.Fatalf("at %d: %v", unix, err)
		}
		for _, now := range []time.Time{{}, time.Unix(1614265330, 0)} {
			if unix == 0 && now.Unix() == 0 {
				continue
			}
			if err := Verify(v.secret, h, []byte(v.body), now, 0); !errors.Is(err, ErrTimestamp) {
				t.Fatalf("signed at %d, verified at %v: %v, want ErrTimestamp", unix, now, err)
			}
		}
	}
}

func TestSignatureHeaderRotation(t *testing.T) {
	current, err := NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	previous := vectors[0].secret
	ts := time.Unix(vectors[0].unix, 0)
	body := []byte(vectors[0].body)

	value, err := SignatureHeader([]string{current, previous}, vectors[0].id, ts, body)
	if err != nil {
		t.Fatal(err)
	}
	entries := strings.Split(value, " ")
	if len(entries) != 2 {
		t.Fatalf("header %q has %d entries, want 2", value, len(entries))
	}
	if entries[1] != vectors[0].signature {
		t.Fatalf("previous secret's entry %q, want the known signature %q", entries[1], vectors[0].signature)
	}
	h := header(vectors[0].id, strconv.FormatInt(vectors[0].unix, 10), value)
	// A receiver still holding the previous secret and one already holding
	// the current one both accept the delivery.
	for _, s := range []string{current, previous} {
		if err := Verify(s, h, body, ts, 0); err != nil {
			t.Fatalf("Verify with %s: %v", s, err)
		}
	}
	stranger, err := NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(stranger, h, body, ts, 0); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("Verify with an unrelated secret: %v, want ErrBadSignature", err)
	}

	if _, err := SignatureHeader(nil, "msg_1", ts, body); !errors.Is(err, ErrInvalidSecret) {
		t.Fatalf("SignatureHeader without secrets: %v, want ErrInvalidSecret", err)
	}
	if _, err := SignatureHeader([]string{current, "whsec_"}, "msg_1", ts, body); !errors.Is(err, ErrInvalidSecret) {
		t.Fatalf("SignatureHeader with an empty secret: %v, want ErrInvalidSecret", err)
	}
}

func TestNewSecret(t *testing.T) {
	a, err := NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	if a == b {
		t.Fatalf("two secrets are equal: %q", a)
	}
	if !strings.HasPrefix(a, SecretPrefix) {
		t.Fatalf("secret %q lacks the %q prefix", a, SecretPrefix)
	}
	key, err := ParseSecret(a)
	if err != nil {
		t.Fatal(err)
	}
	if len(key) != 24 {
		t.Fatalf("key of %d bytes, want 24", len(key))
	}
	now := time.Now()
	sig, err := Sign(a, "msg_new", now, []byte("{}"))
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(a, header("msg_new", strconv.FormatInt(now.Unix(), 10), sig), []byte("{}"), now, 0); err != nil {
		t.Fatalf("round trip: %v", err)
	}
}

func TestParseSecret(t *testing.T) {
	want := []byte{0x31, 0xf2, 0x90, 0xf6, 0xbf, 0x06, 0x29, 0x8a, 0xab, 0x4f, 0x08, 0xd4, 0x3c, 0x3f, 0x08, 0x2c, 0xf6, 0x48, 0xa3, 0x62, 0xda, 0x2d, 0xa4, 0xb0}
	tests := []struct {
		in      string
		wantErr bool
	}{
		{in: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"},
		{in: "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"},
		{in: "  whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n"},
		{in: "", wantErr: true},
		{in: "whsec_", wantErr: true},
		{in: "   ", wantErr: true},
		{in: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaS", wantErr: true}, // length not a multiple of 4
		{in: "whsec_MfKQ9r8GKYqr*wjUPD8ILPZIo2LaLaSw", wantErr: true},
		{in: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw!", wantErr: true},
		{in: "whsec_whsec_MfKQ", wantErr: true}, // the prefix is removed once
	}
	for _, tc := range tests {
		key, err := ParseSecret(tc.in)
		if tc.wantErr {
			if !errors.Is(err, ErrInvalidSecret) {
				t.Errorf("ParseSecret(%q) = %x, %v; want ErrInvalidSecret", tc.in, key, err)
			}
			continue
		}
		if err != nil || !bytes.Equal(key, want) {
			t.Errorf("ParseSecret(%q) = %x, %v; want %x", tc.in, key, err, want)
		}
	}
}

func TestSignRejectsUnsignableInput(t *testing.T) {
	secret := vectors[0].secret
	ts := time.Unix(vectors[0].unix, 0)
	for _, id := range []string{"", "msg.1", "msg 1", "msg\n1", "msg\x001"} {
		if sig, err := Sign(secret, id, ts, nil); err == nil {
			t.Errorf("Sign with id %q = %q, want an error", id, sig)
		}
	}
	if sig, err := Sign(secret, "msg_1", time.Unix(-1, 0), nil); err == nil {
		t.Errorf("Sign before 1970 = %q, want an error", sig)
	}
	if _, err := Sign("not base64!", "msg_1", ts, nil); !errors.Is(err, ErrInvalidSecret) {
		t.Errorf("Sign with a bad secret: %v, want ErrInvalidSecret", err)
	}
}

// FuzzVerify checks that header parsing never panics and that every
// verification error is one of the package's sentinels, and that a
// signature made by Sign verifies (and stops verifying when the body
// changes), for any id, timestamp, body and key Sign accepts.
func FuzzVerify(f *testing.F) {
	for _, v := range vectors {
		key, _ := ParseSecret(v.secret)
		f.Add(v.secret, v.id, strconv.FormatInt(v.unix, 10), v.signature, []byte(v.body), key, v.unix)
	}
	f.Add("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_1", "1614265330",
		"v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= v1a,abc v2,xyz", []byte(`{}`), []byte{1}, int64(0))
	f.Add("whsec_", "", "", "", []byte(nil), []byte(nil), int64(-1))
	f.Add("whsec_!!", "msg.1", "-5", "v1, v1,,, ,v1 v1", []byte("x"), []byte("k"), int64(1<<62))
	f.Add("whsec_AA==", "id", "99999999999999999999", "v1,"+strings.Repeat("A", 43)+"=", []byte{0xff}, []byte{0}, int64(-1<<62))
	f.Add(" whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw ", "msg\x7f", "+1", "\tv1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=\n", []byte(""), []byte("secret"), int64(1614265330))

	sentinels := []error{ErrMissingHeaders, ErrNoSignature, ErrBadSignature, ErrTimestamp, ErrInvalidSecret}
	now := time.Unix(1614265330, 0)
	f.Fuzz(func(t *testing.T, secret, id, timestamp, signature string, body, key []byte, unix int64) {
		// Arbitrary input: no panic, and only the documented errors.
		if k, err := ParseSecret(secret); err == nil && len(k) == 0 {
			t.Fatalf("ParseSecret(%q) accepted an empty key", secret)
		}
		errs := []error{
			VerifyValues(secret, id, timestamp, signature, body, now, 0),
			Verify(secret, header(id, timestamp, signature), body, now, time.Second),
		}
		for _, err := range errs {
			if err == nil {
				continue
			}
			known := false
			for _, s := range sentinels {
				known = known || errors.Is(err, s)
			}
			if !known {
				t.Fatalf("error %v wraps none of the sentinels", err)
			}
		}

		// What Sign produces verifies.
		if len(key) == 0 {
			return
		}
		encoded := base64.StdEncoding.EncodeToString(key)
		if back, err := ParseSecret(SecretPrefix + encoded); err != nil || !bytes.Equal(back, key) {
			t.Fatalf("ParseSecret(encode(%x)) = %x, %v", key, back, err)
		}
		ts := time.Unix(unix, 0)
		sig, err := Sign(SecretPrefix+encoded, id, ts, body)
		if err != nil {
			if checkID(id) == nil && unix >= 0 {
				t.Fatalf("Sign refused id %q at %d: %v", id, unix, err)
			}
			return
		}
		value := signature + " " + sig // next to arbitrary other entries
		h := header(id, strconv.FormatInt(unix, 10), value)
		if err := Verify(SecretPrefix+encoded, h, body, ts, 0); err != nil {
			t.Fatalf("Verify of Sign's header %q: %v", value, err)
		}
		if err := VerifyValues(encoded, id, strconv.FormatInt(unix, 10), sig, body, ts.Add(DefaultTolerance), 0); err != nil {
			t.Fatalf("VerifyValues with the prefix-less secret: %v", err)
		}
		tampered := append(append([]byte{}, body...), '!')
		if err := Verify(SecretPrefix+encoded, header(id, strconv.FormatInt(unix, 10), sig), tampered, ts, 0); !errors.Is(err, ErrBadSignature) {
			t.Fatalf("Verify of a tampered body: %v, want ErrBadSignature", err)
		}
	})
}
