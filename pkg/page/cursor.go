package page

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"
)

// macSize is the length of the truncated HMAC-SHA256 tag; 128 bits is far
// beyond what an online guesser can reach.
const macSize = 16

const cursorVersion = 1

var b64 = base64.RawURLEncoding.Strict()

// Codec signs and verifies cursors so clients cannot forge positions or
// reuse a cursor with other parameters.
type Codec struct {
	secret []byte
}

// NewCodec makes a Codec keyed by secret. An empty secret gets a random one:
// cursors then only work within this process (the caller should warn).
func NewCodec(secret []byte) *Codec {
	if len(secret) == 0 {
		secret = make([]byte, 32)
		_, _ = rand.Read(secret) // crypto/rand.Read never fails (Go ≥ 1.24)
	}
	return &Codec{secret: append([]byte(nil), secret...)}
}

// cursor is the signed content of a cursor. Field names are short because
// the cursor travels in URLs.
type cursor struct {
	V      int    `json:"v"`
	SortBy string `json:"s"`
	Order  Order  `json:"o"`
	Filter string `json:"f"` // hash of the filter fingerprint
	Value  string `json:"k"` // sort value, encoded by Kind
	ID     string `json:"i"`
}

// errBadCursor covers every undecodable cursor: the client learns nothing
// about why a forged one failed.
var errBadCursor = errors.New("malformed or tampered cursor")

func (c *Codec) encode(cur cursor) string {
	payload, _ := json.Marshal(cur) // only strings and ints: cannot fail
	return b64.EncodeToString(append(payload, c.mac(payload)...))
}

func (c *Codec) decode(s string) (cursor, error) {
	raw, err := b64.DecodeString(s)
	if err != nil || len(raw) <= macSize {
		return cursor{}, errBadCursor
	}
	payload, tag := raw[:len(raw)-macSize], raw[len(raw)-macSize:]
	if !hmac.Equal(tag, c.mac(payload)) {
		return cursor{}, errBadCursor
	}
	var cur cursor
	if err := json.Unmarshal(payload, &cur); err != nil || cur.V != cursorVersion {
		return cursor{}, errBadCursor
	}
	return cur, nil
}

func (c *Codec) mac(payload []byte) []byte {
	h := hmac.New(sha256.New, c.secret)
	h.Write(payload)
	return h.Sum(nil)[:macSize]
}

func filterHash(fingerprint string) string {
	sum := sha256.Sum256([]byte(fingerprint))
	return b64.EncodeToString(sum[:9])
}

// encodeValue renders a sort value of the given kind as cursor text.
func encodeValue(k Kind, v any) (string, error) {
	switch k {
	case KindTime:
		t, ok := v.(time.Time)
		if !ok {
			return "", fmt.Errorf("page: sort value %T, want time.Time", v)
		}
		return t.UTC().Format(time.RFC3339Nano), nil
	case KindInt:
		switch n := v.(type) {
		case int:
			return strconv.FormatInt(int64(n), 10), nil
		case int32:
			return strconv.FormatInt(int64(n), 10), nil
		case int64:
			return strconv.FormatInt(n, 10), nil
		}
		return "", fmt.Errorf("page: sort value %T, want an integer", v)
	case KindString:
		s, ok := v.(string)
		if !ok {
			return "", fmt.Errorf("page: sort value %T, want string", v)
		}
		return s, nil
	}
	return "", fmt.Errorf("page: unknown key kind %d", k)
}

// decodeValue is the inverse of encodeValue.
func decodeValue(k Kind, s string) (any, error) {
	switch k {
	case KindTime:
		return time.Parse(time.RFC3339Nano, s)
	case KindInt:
		return strconv.ParseInt(s, 10, 64)
	case KindString:
		return s, nil
	}
	return nil, fmt.Errorf("unknown key kind %d", k)
}

// position decodes the sort value and id of a verified cursor.
func (cur cursor) position(k Kind) (*Position, error) {
	v, err := decodeValue(k, cur.Value)
	if err != nil {
		return nil, errBadCursor
	}
	id, err := uuid.Parse(cur.ID)
	if err != nil {
		return nil, errBadCursor
	}
	return &Position{Value: v, ID: id}, nil
}
