package party

import (
	"fmt"
	"net/mail"
	"strings"
	"unicode"
	"unicode/utf8"
)

// textKind says what else than the length a text field is checked for.
type textKind int

const (
	plainText textKind = iota // one line
	multiline                 // newlines and tabs allowed (addresses, memos)
	emailText                 // an email address
	phoneText                 // a phone number
)

// textRule says how a text field is checked.
type textRule struct {
	max  int // characters
	kind textKind
}

// The rules of a counterparty's text fields.
var (
	ruleExternalID = textRule{max: MaxExternalIDLength}
	ruleName       = textRule{max: MaxNameLength}
	ruleEmail      = textRule{max: MaxEmailLength, kind: emailText}
	rulePhone      = textRule{max: MaxPhoneLength, kind: phoneText}
	ruleAddress    = textRule{max: MaxAddressLength, kind: multiline}
	ruleMemo       = textRule{max: MaxMemoLength, kind: multiline}
)

// normalizeText trims surrounding white space; "" means none (null).
func normalizeText(s string) string { return strings.TrimSpace(s) }

// checkText returns why s (already trimmed, not empty) breaks r, or "".
func checkText(s string, r textRule) string {
	if !utf8.ValidString(s) {
		return "must be valid UTF-8"
	}
	if n := utf8.RuneCountInString(s); n > r.max {
		return fmt.Sprintf("must be at most %d characters, got %d", r.max, n)
	}
	bad := strings.IndexFunc(s, func(c rune) bool {
		if r.kind == multiline && (c == '\n' || c == '\t' || c == '\r') {
			return false
		}
		return unicode.IsControl(c) || c == utf8.RuneError || c == '\u2028' || c == '\u2029'
	})
	if bad >= 0 {
		return "must not contain control characters"
	}
	switch r.kind {
	case emailText:
		return checkEmail(s)
	case phoneText:
		return checkPhone(s)
	}
	return ""
}

const emailReason = "must be an email address such as name@example.com"

// checkEmail accepts a bare address local@domain as net/mail parses it
// (no display name, no comments, no angle brackets) whose domain has at
// least two labels.
func checkEmail(s string) string {
	if strings.Count(s, "@") != 1 || strings.ContainsAny(s, " <>") {
		return emailReason
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s {
		return emailReason
	}
	local, domain, _ := strings.Cut(s, "@")
	if local == "" || !strings.Contains(domain, ".") || strings.HasPrefix(domain, ".") ||
		strings.HasSuffix(domain, ".") || strings.Contains(domain, "..") {
		return emailReason
	}
	return ""
}

// MinPhoneDigits is the fewest digits a phone number has.
const MinPhoneDigits = 3

// checkPhone accepts what people write as a phone number: digits, spaces,
// `+ ( ) - . / # * , ; =`, and ASCII letters (extensions such as "ext 12",
// vanity numbers such as 1-800-FLOWERS), with at least MinPhoneDigits
// digits.
func checkPhone(s string) string {
	digits := 0
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == ' ' || strings.ContainsRune("+()-./#*,;=", c):
		case c < utf8.RuneSelf && unicode.IsLetter(c):
		default:
			return "may contain only digits, ASCII letters, spaces and + ( ) - . / # * , ; ="
		}
	}
	if digits < MinPhoneDigits {
		return fmt.Sprintf("must contain at least %d digits", MinPhoneDigits)
	}
	return ""
}
