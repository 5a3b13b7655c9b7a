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
		// A branch number with spaces is no fragment of a logo.
		{"Taco # 30", "Taco # 30"},
		// A name OCR read with a gap of a few spaces is one name;
		// fragments far out in the margin are not part of it.
		{"Ki   Taco # 30", "Ki Taco # 30"},
		{"Ba                  Friendly Red's", "Friendly Red's"},
		{"Mexican Restaurant & Bar               Aa", "Mexican Restaurant & Bar"},
		{"Ses |     KAZ RAMEN      SS", "KAZ RAMEN"},
		{"Dine In   Table 3", "Dine In"},
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

// TestBusinessWord: a word that says what a business is, as OCR reads
// it too: a letter wrong or lost, the word split in two.
func TestBusinessWord(t *testing.T) {
	for _, c := range []struct {
		s  string
		ok bool
	}{
		{"Pine Tree Cafe", true},
		{"YUM'S RESTAURAMT", true},
		{"UM's RES TAURAN", true},
		{"Golden Bowl Kitchn", true},
		{"Vibe on", false},
		{"Restful Gardens", false},
		{"Deals", false}, // under six letters: one edit is another word
	} {
		if got := businessWord(c.s); got != c.ok {
			t.Errorf("businessWord(%q) = %v, want %v", c.s, got, c.ok)
		}
	}
}

// TestVendorOCRNames: names in headers OCR damaged, and legal names
// that name no shop.
func TestVendorOCRNames(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{
			"a header line naming the business, its word split by OCR, over a fragment line",
			"Vibe on\n1 UM's RES TAURAN,\nWalk In\nChicken Wings      4.49\nTotal: 4.49\n",
			"UM's RES TAURAN",
		},
		{
			"an operator's legal name that only says the trade loses to the header",
			"ee RESTAURANTS, INC.\nKi   Taco # 30\n1 TACO ASADA     1.59\n1 ORDEN CHIPS    1.50\nTOTAL 3.09\n",
			"Ki Taco # 30",
		},
		{
			"a header of noise: the thanks names the shop",
			"waits OES Se oko\nfloral park, ny 11001\n1 Escargot      10.95\nTOTAL:          10.95\n3  Thank you for dining at Villa D'Este.       poe\nPlease come again soon",
			"Villa D'Este",
		},
		{
			"a clean first header line over the thanks",
			"Corner Bistro\n1 Escargot      10.95\nTOTAL:          10.95\nThank you for dining at Corner Bistro Downtown!",
			"Corner Bistro",
		},
		{
			"a thanks naming the shop, a sentence after it",
			"waits OES Se oko\n1 Escargot      10.95\nTOTAL:          10.95\nThanks for shopping at Green Grocer. See you soon!",
			"Green Grocer",
		},
		{
			"a thanks without a name",
			"waits OES Se oko\n1 Escargot      10.95\nTOTAL:          10.95\nThank you for dining with us!",
			"",
		},
		{
			"a legal name with a name still wins",
			"Willkommen\nBistro Roma GmbH\nMarktplatz 4\n33098 Paderborn\nPizza   8,90\nSUMME   8,90\n",
			"Bistro Roma",
		},
	} {
		if got := Parse(c.text, testNow).ProposedVendorDisplay; got != c.want {
			t.Errorf("%s: vendor %q, want %q", c.name, got, c.want)
		}
	}
}
