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

// TestWellCased: a header line's text is a name when written as names
// are, not as OCR's fragments of a logo.
func TestWellCased(t *testing.T) {
	for _, c := range []struct {
		s  string
		ok bool
	}{
		{"Blue Bottle Coffee", true},
		{"BLUE BOTTLE COFFEE", true},
		{"SmokeBoxBBQ", true},
		{"McDonald's", true},
		{"Joe's Diner", true},
		{"of Windham", true},
		{"KFC", true},
		{"eee", false},
		{"suknorS", false},
		{"404 MOA WNyHL", false},
		{"waits OES Se oko", false},
		{"Con", false},
		{"Thank you for dining with us", false},
		{"Respekt, wer's selber macht.", false},
		{"Qty Size Item Price", false},
	} {
		if got := wellCased(c.s); got != c.ok {
			t.Errorf("wellCased(%q) = %v, want %v", c.s, got, c.ok)
		}
	}
}

// TestHeaderName: what of a header line names the shop, and the lines
// that name none.
func TestHeaderName(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{"7       CITY TASTE          =", "CITY TASTE"},
		{"HP Pho Ga", "HP Pho Ga"},
		{"Server: Admin", ""},
		{"ed         EUR", ""},
		{"Yonkers, NY", ""},
		{"Qty Size Item          Price", ""},
		{"1 Coffee                         33", ""},
		{"Senefelder Straße 2", ""},
		{"your GUEST NUMBER IS", ""},
		{"RECHNUNG", ""},
		{"FACTURE", ""},
		// A phone after the name on its line is not part of it; a
		// chain's branch number is.
		{"Corner Deli Phone 555-201-7788", "Corner Deli"},
		{"Noodle Bar Tel: (555) 201-7788", "Noodle Bar"},
		{"Sandwiches#20418-0 hone 555-201-7788", "Sandwiches#20418-0"},
		{"Pizza Hut #4471", "Pizza Hut #4471"},
		{"(555) 201-7788", ""},
		{"Tel 555-201-7788", ""},
		{"Phone: (555) 201-7788", ""},
		{"PH 555.201.7788", ""},
		{"Fax 555-201-7788", ""},
		{"Store #7053", ""},
		{"Order #12", ""},
	} {
		l := splitLines(c.line)[0]
		l.kind, l.dates = classify(l.text), findDates(l.text, false, testNow)
		if got := headerName(l); got != c.want {
			t.Errorf("headerName(%q) = %q, want %q", c.line, got, c.want)
		}
	}
}

// TestVendorWebBrand: over a legal name, a web address's name that the
// text also writes as a word is the brand (a marketplace's invoice,
// whose legal name is the seller's); the web address alone is not.
func TestVendorWebBrand(t *testing.T) {
	invoice := "INVOICE\nInvoice Date: 20-10-2025\nDesk Lamp   1   899.00\nGrand Total     899.00\n" +
		"Kestrel Trading Pvt. Ltd.\nShopzone.com Customer Care || www.shopzone.com/support\n"
	for _, c := range []struct{ name, text, want string }{
		{"the brand written as a word", invoice + "At Shopzone we try to deliver every order on time.\n", "Shopzone"},
		{"the web address alone", invoice, "Kestrel Trading"},
	} {
		if got := Parse(c.text, testNow).ProposedVendorDisplay; got != c.want {
			t.Errorf("%s: vendor %q, want %q", c.name, got, c.want)
		}
	}
}
