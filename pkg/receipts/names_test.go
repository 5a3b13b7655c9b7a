package receipts

import "testing"

func TestNamesMatch(t *testing.T) {
	for _, c := range []struct {
		got, want string
		ok        bool
	}{
		{"Blue Bottle Coffee", "BLUE BOTTLE COFFEE", true},
		{"Blue Botle Coffee 2", "Blue Bottle Coffee", true},
		{"Aldi GmbH & Co. KG", "aldi", true},
		{"Joe's Diner", "JOES DINER;", true},
		{"Warburger Strasse 130", "lidl", false},
		{"", "lidl", false},
		{"", "", true},
	} {
		if got := NamesMatch(c.got, c.want); got != c.ok {
			t.Errorf("NamesMatch(%q, %q) = %v, want %v", c.got, c.want, got, c.ok)
		}
	}
}
