package domain

import "strings"

// VINLength is the length of a vehicle identification number (ISO 3779).
const VINLength = 17

// vinValue is the transliteration of ISO 3779 / 49 CFR 565: I, O and Q are
// not used.
func vinValue(c byte) (int, bool) {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0'), true
	case c >= 'A' && c <= 'H':
		return int(c-'A') + 1, true
	case c >= 'J' && c <= 'N':
		return int(c-'J') + 1, true
	case c == 'P':
		return 7, true
	case c == 'R':
		return 9, true
	case c >= 'S' && c <= 'Z':
		return int(c-'S') + 2, true
	}
	return 0, false
}

var vinWeights = [VINLength]int{8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2}

// NormalizeVIN upper-cases a VIN and checks it: 17 characters among 0-9
// and A-Z without I, O and Q, whose 9th character is the check digit (0-9
// or X) of the weighted sum modulo 11. It returns the VIN and "" or the
// reason it is refused.
func NormalizeVIN(s string) (string, string) {
	s = strings.ToUpper(s)
	if len(s) != VINLength {
		return "", "must be 17 characters"
	}
	sum := 0
	for i := 0; i < VINLength; i++ {
		v, ok := vinValue(s[i])
		if !ok {
			return "", "may contain only digits and the letters A-Z without I, O and Q"
		}
		sum += v * vinWeights[i]
	}
	want := byte('0' + sum%11)
	if sum%11 == 10 {
		want = 'X'
	}
	if s[8] != want {
		return "", "check digit (9th character) does not match: not a valid VIN"
	}
	return s, ""
}
