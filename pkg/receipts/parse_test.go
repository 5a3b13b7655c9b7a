package receipts

import (
	"strings"
	"testing"
	"time"

	"github.com/acctsuite/acct/pkg/money"
)

var testNow = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)

func TestParse(t *testing.T) {
	type item struct {
		desc string
		amt  money.Cents
	}
	tests := []struct {
		name   string
		text   string
		vendor string
		date   string
		total  money.Cents // -1: none
		items  []item
	}{
		{
			name: "clean US receipt",
			text: `BLUE BOTTLE COFFEE
123 Main St
Springfield, IL 62704
(555) 123-4567
Date: 03/14/2026 08:15
Latte              4.50
Blueberry Muffin   3.25
Subtotal           7.75
Tax 8.25%          0.64
TOTAL              8.39
VISA ****1234      8.39
Thank you!`,
			vendor: "Blue Bottle Coffee", date: "2026-03-14", total: 839,
			items: []item{{"Latte", 450}, {"Blueberry Muffin", 325}},
		},
		{
			name: "ISO date, AMOUNT DUE, cash and change",
			text: `Joe's Diner
45 Oak Avenue
Portland, OR 97205
2026-03-14 12:01:33   Reg 2
Cheeseburger      12.95
Iced Tea           2.50
SUBTOTAL          15.45
SALES TAX          1.24
AMOUNT DUE        16.69
CASH              20.00
CHANGE             3.31`,
			vendor: "Joe's Diner", date: "2026-03-14", total: 1669,
			items: []item{{"Cheeseburger", 1295}, {"Iced Tea", 250}},
		},
		{
			name: "European: comma decimals, dotted date, TOTAL EUR",
			text: `CAFE CENTRAL
Hauptstrasse 5
10115 Berlin
Datum: 14.03.2026 12:30
Cappuccino        3,20
Apfelstrudel      4,50
TOTAL EUR         7,70
MAESTRO           7,70`,
			vendor: "Cafe Central", date: "2026-03-14", total: 770,
			items: []item{{"Cappuccino", 320}, {"Apfelstrudel", 450}},
		},
		{
			name: "European day-first slash date",
			text: `LA TRATTORIA
Via Roma 1
20121 Milano
05/03/2026
Pizza Margherita   9,50
Acqua              2,00
TOTALE            11,50`,
			vendor: "La Trattoria", date: "2026-03-05", total: 1150,
			items: []item{{"Pizza Margherita", 950}, {"Acqua", 200}},
		},
		{
			name: "OCR noise: O for 0, l for 1, stray marks, $ 12.34",
			text: `.   , Welcome to
;  HARDWARE DEPOT  :
900 Market Street
Tel: (245) 507-4182
DATE Mar 14 2026
WOOD SCREWS 2IN   :   $ 1O.5O T
DUCT TAPE       ‘   $ l2.34 N
SUBT0TAL            $ 22.84
TAX                  $ 1.83 ©
T0TAL               $ 24.67
MASTERCARD ****5710  $ 24.67`,
			vendor: "Hardware Depot", date: "2026-03-14", total: 2467,
			items: []item{{"WOOD SCREWS 2IN", 1050}, {"DUCT TAPE", 1234}},
		},
		{
			name: "day month year, tip, grand total",
			text: `Pasta Palace
17 Harbor Blvd
Boston, MA 02110
14 Mar 2026 19:42
Spaghetti Bolognese   18.00
Caesar Salad          11.50
Subtotal              29.50
Tax                    2.36
Tip                    5.90
Grand Total           37.76`,
			vendor: "Pasta Palace", date: "2026-03-14", total: 3776,
			items: []item{{"Spaghetti Bolognese", 1800}, {"Caesar Salad", 1150}},
		},
		{
			name: "quantities and a two-line item",
			text: `CORNER GROCER
2200 Elm Rd Suite 4
March 14, 2026
2 x Bagel            5.00
Bananas 3 x 0.59     1.77
Whole Milk 1 Gal
  2 @ 3.49           6.98
Items sold: 3
TOTAL               13.75`,
			vendor: "Corner Grocer", date: "2026-03-14", total: 1375,
			items: []item{{"Bagel", 500}, {"Bananas", 177}, {"Whole Milk 1 Gal", 698}},
		},
		{
			name: "table columns and a thousands separator",
			text: `BUILDERS WAREHOUSE
Store #4411
Receipt #55120
Date 2026-03-14
ITEM        QTY  PRICE   AMOUNT
Circular Saw 1  1,299.00  1,299.00
Nails 2lb    2  4.50      9.00
SUBTOTAL               1,308.00
TAX                      104.64
BALANCE DUE            1,412.64`,
			vendor: "Builders Warehouse", date: "2026-03-14", total: 141264,
			items: []item{{"Circular Saw", 129900}, {"Nails 2lb", 900}},
		},
		{
			name: "total on the next line, colon for a point",
			text: `METRO FUEL
Mon, 02 Mar 2026
Unleaded Fuel     45:10
Snack Bar          2.49
TOTAL
47.59`,
			vendor: "Metro Fuel", date: "2026-03-02", total: 4759,
			items: []item{{"Unleaded Fuel", 4510}, {"Snack Bar", 249}},
		},
		{
			name: "no total line: the largest amount",
			text: `Print Shop Express
Poster Print    12.00
Business Cards  30.00`,
			vendor: "Print Shop Express", date: "", total: 4200,
			items: []item{{"Poster Print", 1200}, {"Business Cards", 3000}},
		},
		{
			name: "future and ancient dates are not the sale date",
			text: `CITY BOOKS
Return by 12/31/2099
Date: 01/02/1999
Printed 02/03/2026
Notebook     4.99
TOTAL        4.99`,
			vendor: "City Books", date: "2026-02-03", total: 499,
			items: []item{{"Notebook", 499}},
		},
		{
			name: "total tax and savings lines are not the total",
			text: `VALLEY FOOD MART
03/01/2026
Greek Yogurt   5.49
Coupon        -1.00
TOTAL SAVINGS  1.00
TOTAL TAX      0.36
TOTAL          4.85`,
			vendor: "Valley Food Mart", date: "2026-03-01", total: 485,
			items: []item{{"Greek Yogurt", 549}},
		},
		{
			name: "German supermarket: logo not read, ZU ZAHLEN, cash and change, VAT table, legal name",
			text: `A -L DTI.       .
Pohlweg 110
33100 Paderborn
UNSERE OFFNUNGSZEITEN
FERTIGGERICHTE                     1,79 C
KIWI, VORGEREIFT                   1,49 C
SEKT 0,2 L                         0,89 D
ZU ZAHLEN EURO                     4,17
BARGELD                           20,00
ZURUCK                            15,83
MWST       Netto MWST-BETRAG = BRUTTO
C 7,00%     3,06         0,22      3,28
D 19,00%     0,75         0,14      0,89
Vielen Dank fur Ihren Einkauf!
Aldi GmbH & Co. KG, Schloss Holte
09:51 18.04.2020`,
			vendor: "Aldi", date: "2020-04-18", total: 417,
			items: []item{{"FERTIGGERICHTE", 179}, {"KIWI, VORGEREIFT", 149}, {"SEKT 0,2 L", 89}},
		},
		{
			name: "header of OCR fragments: the web address names the shop",
			text: `ee mh :. a
.|  ,, i
SUMME                  7,50
BAR                   10,00
www.lidl.de  12.05.2020`,
			vendor: "Lidl", date: "2020-05-12", total: 750,
		},
		{
			name: "logo noise over the name: the line over the address, its column without the margins' marks",
			text: `|                                       7 soe
are       SmokeBoxBBQ         pee
Fon                    2361 Whitney Ave                     byt
we             Hamden, CT 06518               ate
5/22/2014 2:00:48 PM
1 FULL BOX           12.00
TOTAL                13.50`,
			vendor: "SmokeBoxBBQ", date: "2014-05-22", total: 1350,
			items: []item{{"FULL BOX", 1200}},
		},
		{
			name: "a total label glued to a time, a gratuity abbreviated, a stray digit after the total",
			text: `LANDFALL RESTAURANT
06/10/17
1 CUP CHOWDER            6.00
Sub Total:    6.00
Tax           :     0.40
GRAT 18             1.15
06/10 1:399TOTAL :      7.55      3`,
			vendor: "Landfall Restaurant", date: "2017-06-10", total: 755,
			items: []item{{"CUP CHOWDER", 600}},
		},
		{
			name: "a house number read with a dot is still the street",
			text: `CITY BOOKS
8.Station Square
75002 Paris
DATE 2025-06-22
NOTEBOOK     4,50
TOTAL        4,50`,
			vendor: "City Books", date: "2025-06-22", total: 450,
			items: []item{{"NOTEBOOK", 450}},
		},
		{
			name: "the total also on a VAT row, a price line below the item",
			text: `APOTHEKE AM MARKT
2 * Atemschutzmaske FFP2
08001287  19%          EUR 19,90
Einzelpreis            EUR 9,95
Summe                  EUR 19,90
Typ       Netto     MwSt     Brutto
19 %      16,72     3,18     19,90
23.04.2020 09:59`,
			vendor: "Apotheke Am Markt", date: "2020-04-23", total: 1990,
			items: []item{{"Einzelpreis", 995}},
		},
		{
			name: "no total line read: cash given minus change, suggested tips not added",
			text: `WINGS & THINGS
1 #7 2PC MEAL         5.99
1 #3 WING MEAL        6.99
SUB TOTAL            12.98
TAX                   1.15
CASH                 20.00
CHANGE                5.87
18% TIP               2.34
20% TIP               2.60`,
			vendor: "Wings & Things", total: 1413,
			items: []item{{"#7 2PC MEAL", 599}, {"#3 WING MEAL", 699}},
		},
		{
			name: "a total line that starts with the date and time",
			text: `CAFE ROMA
Espresso              3.00
Croissant             3.00
Sub Total:            6.00
Tax       :           0.40
06/10/2026 12:39 TOTAL :     6.40`,
			vendor: "Cafe Roma", date: "2026-06-10", total: 640,
			items: []item{{"Espresso", 300}, {"Croissant", 300}},
		},
		{
			name: "an invoice: the invoice date, not the order date; a German month",
			text: `QualityHosting AG
Bestelldatum   3. Mai 2026
Rechnungsdatum   7. Mai 2026
Hosting              34,73
Gesamtbetrag EUR     34,73`,
			vendor: "QualityHosting", date: "2026-05-07", total: 3473,
			items: []item{{"Hosting", 3473}},
		},
		{
			name: "a year read with a 9 for its 0",
			text: `DECCAN SPICE
7/26/2919 10:56:49 PM
Dal Fry              10.99
TOTAL                10.99`,
			vendor: "Deccan Spice", date: "2019-07-26", total: 1099,
			items: []item{{"Dal Fry", 1099}},
		},
		{
			name: "a total label OCR lost: the amounts right above add up to it",
			text: `NORTH STAR BOOKS
11/03/2026
Notebook        4.99
Pens            3.50
Stickers        1.25
lo#a!           9.74`,
			vendor: "North Star Books", date: "2026-11-03", total: 974,
			items: []item{{"Notebook", 499}, {"Pens", 350}, {"Stickers", 125}, {"lo#a", 974}},
		},
		{
			name: "a slogan over the shop's name, which the web address confirms",
			text: `Frisch vom Feld
Lindenweg 4
33102 Paderborn
Kartoffeln          2,40 A
SUMME               2,40
11.05.2026 09:12
==  :  = Feldhof Nolte
www. feldhof-nolte. de`,
			vendor: "Feldhof Nolte", date: "2026-05-11", total: 240,
			items: []item{{"Kartoffeln", 240}},
		},
		{
			name: "a line that only mentions the web address's brand does not name the shop",
			text: `Pasta Nova
12 Elm St
Springfield, IL 62704
Ordered via Foodhub
1 Lasagna            12.00
TOTAL                12.00
03/14/2026 19:02
www.foodhub.com`,
			vendor: "Pasta Nova", date: "2026-03-14", total: 1200,
			items: []item{{"Lasagna", 1200}},
		},
		{
			name: "no total line read: the VAT table's gross column",
			text: `BÄCKEREI KORN
Marktplatz 3
33098 Paderborn
Brötchen            1,20 A
Kaffee              2,80 B
Steuer %  Brutto  Netto  Steuer
A 7,00%    1,20    1,12    0,08
B 19,00%   2,80    2,35    0,45
14.05.2026 10:12`,
			vendor: "Bäckerei Korn", date: "2026-05-14", total: 400,
			items: []item{{"Brötchen", 120}, {"Kaffee", 280}},
		},
		{
			name: "a service charge with its rate is added: the later total",
			text: `HARBOR GRILL
Date: 04/02/2026
1 Fish Tacos         14.00
1 Lemonade            4.00
Subtotal             18.00
Tax                   1.44
Total                19.44
Service Charge 18%    3.24
Total                22.68`,
			vendor: "Harbor Grill", date: "2026-04-02", total: 2268,
			items: []item{{"Fish Tacos", 1400}, {"Lemonade", 400}},
		},
		{
			name: "electronic cash is a card payment; a VAT code after the amount; a street without its number",
			text: `MÖBELHAUS NORD
Industriestraße
24103 Kiel
Datum: 26.09.2026
Regal Eiche               49,99 1
Stehlampe                 19,99 1
elec.-cash                69,98`,
			vendor: "Möbelhaus Nord", date: "2026-09-26", total: 6998,
			items: []item{{"Regal Eiche", 4999}, {"Stehlampe", 1999}},
		},
		{
			name: "a logo's fragments and odd case are no name; a street without a street word over the city",
			text: `eee
Order Ahead
PINE TREE CAFE
190 Jericho Tpke
Floral Park, NY 11001
Jun28'26 05:36P
Bagel                 2.50
TOTAL                 2.50`,
			vendor: "Pine Tree Cafe", date: "2026-06-28", total: 250,
			items: []item{{"Bagel", 250}},
		},
		{
			name: "a name on two lines; a greeting and a table header are no name",
			text: `Your order number is
Friendly Fox
of Windham
22 Haverhill Rd
Windham NH 03087
Qty  Item          Price
1 Chowder           6.00
Total               6.00
Feb23-26 10:23AM`,
			vendor: "Friendly Fox of Windham", date: "2026-02-23", total: 600,
			items: []item{{"Chowder", 600}},
		},
		{
			name: "a branch line between the name and the address; a city without its ZIP code",
			text: `Yonkers, NY
Lucky Star Grill & Bar
Cross County #25
17588 Castleton St
City of Industry, CA 91748
1 Burger              9.00
Total                 9.00`,
			vendor: "Lucky Star Grill & Bar", total: 900,
			items: []item{{"Burger", 900}},
		},
		{
			name: "the shop's name over its operator's legal name; a Dutch month",
			text: `MEDIA WORLD
TV-Hifi-Elektro GmbH Paderborn
Factuurdatum: 29 maart 2026
Kabel                  9,99
Summe                  9,99`,
			vendor: "Media World", date: "2026-03-29", total: 999,
			items: []item{{"Kabel", 999}},
		},
		{
			name: "fragments in lower case are no legal form",
			text: `Dine In          se
BLUE HERON
45 Oak Avenue
Portland, OR 97205
Tea                2.00
Total              2.00`,
			vendor: "Blue Heron", total: 200,
			items: []item{{"Tea", 200}},
		},
		{
			name: "no total line read: the unlabelled amount right above the payment",
			text: `GOLDEN WOK
1 Lo Mein              8.99
1 Egg Roll             2.25
1 Fried Rice           8.99
xx7 ;                 21.45
CASH                  25.00`,
			vendor: "Golden Wok", total: 2145,
			items: []item{{"Lo Mein", 899}, {"Egg Roll", 225}, {"Fried Rice", 899}, {"xx7", 2145}},
		},
		{
			name: "no subtotal word: the amount over the tax line plus the tax",
			text: `TACO SHACK
1 Burrito Combo        8.28
2 Tacos @ 1.89         3.78
Food                  12.06
Tax                    1.06`,
			vendor: "Taco Shack", total: 1312,
			items: []item{{"Burrito Combo", 828}, {"Tacos", 378}, {"Food", 1206}},
		},
		{
			name: "the date under its column's label, after an earlier date",
			text: `BAUMARKT OST
Angebot vom 28.04.2026
Schrauben             4,99
SUMME                 4,99
Datum      Zeit   BonNr  Kasse
02.05.2026 16:39  3619   5`,
			vendor: "Baumarkt Ost", date: "2026-05-02", total: 499,
			items: []item{{"Schrauben", 499}},
		},
		{
			name: "French: bienvenue, sous-total, TVA, net à payer, espèces and rendu",
			text: `Bienvenue chez
BOULANGERIE DU PORT
12 rue de la Paix
75002 Paris
14/03/2026 08:15
Baguette               1,20
Croissant x2           2,40
SOUS-TOTAL HT          3,28
TVA 10%                0,32
NET A PAYER            3,60
ESPECES               10,00
RENDU                  6,40`,
			vendor: "Boulangerie Du Port", date: "2026-03-14", total: 360,
			items: []item{{"Baguette", 120}, {"Croissant", 240}},
		},
		{
			name: "Dutch: welkom bij, BTW, te betalen, contant and wisselgeld",
			text: `Welkom bij
DE GOUDEN KOFFIEPOT
Markt 4
3511 KB Utrecht
Koffie                 2,80
Appeltaart             3,90
BTW 9%                 0,55
Te betalen             6,70
Contant               10,00
Wisselgeld             3,30`,
			vendor: "De Gouden Koffiepot", total: 670,
			items: []item{{"Koffie", 280}, {"Appeltaart", 390}},
		},
		{
			name:  "empty",
			text:  "",
			total: -1,
		},
		{
			name:  "only noise",
			text:  ".,;'\n~~~\n|||",
			total: -1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Parse(tc.text, testNow)
			if !strings.EqualFold(r.ProposedVendorDisplay, tc.vendor) {
				t.Errorf("vendor = %q, want %q", r.ProposedVendorDisplay, tc.vendor)
			}
			gotDate := ""
			if r.ProposedPaidAt != nil {
				gotDate = r.ProposedPaidAt.Format(time.DateOnly)
			}
			if gotDate != tc.date {
				t.Errorf("date = %q, want %q", gotDate, tc.date)
			}
			switch {
			case tc.total < 0 && r.ProposedAmountCents != nil:
				t.Errorf("total = %s, want none", *r.ProposedAmountCents)
			case tc.total >= 0 && (r.ProposedAmountCents == nil || *r.ProposedAmountCents != tc.total):
				t.Errorf("total = %s, want %s", fmtCents(r.ProposedAmountCents), tc.total)
			}
			if len(r.ProposedLineItems) != len(tc.items) {
				t.Fatalf("items = %v, want %v", r.ProposedLineItems, tc.items)
			}
			for i, it := range tc.items {
				got := r.ProposedLineItems[i]
				if !strings.EqualFold(got.Description, it.desc) || got.AmountCents != it.amt {
					t.Errorf("item %d = %q %s, want %q %s", i, got.Description, got.AmountCents, it.desc, it.amt)
				}
			}
			if r.Confidence < 0 || r.Confidence > 1 || len(r.Reasons) == 0 {
				t.Errorf("confidence %v, reasons %v", r.Confidence, r.Reasons)
			}
		})
	}
}

func TestParseConfidence(t *testing.T) {
	good := Parse("CITY BOOKS\nDate: 03/14/2026\nNotebook 4.99\nPen 1.00\nSubtotal 5.99\nTax 0.48\nTotal 6.47", testNow)
	poor := Parse("something 12.00", testNow)
	if good.Confidence < 0.9 || poor.Confidence >= good.Confidence {
		t.Fatalf("confidence good %v (%v), poor %v (%v)", good.Confidence, good.Reasons, poor.Confidence, poor.Reasons)
	}
}

// TestFieldConfidence: each field says how sure it is, and an uncertain
// total carries a note saying how it was found.
func TestFieldConfidence(t *testing.T) {
	for _, c := range []struct {
		name                   string
		text                   string
		vendor, paidAt, amount float64
		note                   bool
	}{
		{"a total line the arithmetic confirms, a labelled date", "CITY BOOKS\nDate: 03/14/2026\nNotebook 4.99\nPen 1.00\nSubtotal 5.99\nTax 0.48\nTotal 6.47", 0.75, 0.9, 0.95, false},
		{"a total line alone, a date unlabelled", "CITY BOOKS\n03/14/2026\nNotebook 4.99\nTotal 6.47", 0.75, 0.7, 0.75, false},
		{"the arithmetic alone", "CITY BOOKS\nNotebook 4.99\nPen 1.00\nSubtotal 5.99\nTax 0.48", 0.75, 0, 0.6, true},
		{"the largest amount", "something 12.00", 0, 0, 0.3, true},
		{"nothing", "", 0, 0, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := Parse(c.text, testNow)
			f := r.FieldConfidence
			if f.Vendor != c.vendor || f.PaidAt != c.paidAt || f.Amount != c.amount || (r.Note != "") != c.note {
				t.Fatalf("confidence %+v, note %q; want vendor %v, paid_at %v, amount %v, a note: %v", f, r.Note, c.vendor, c.paidAt, c.amount, c.note)
			}
		})
	}
}

// TestParseForCountry: a date the receipt leaves ambiguous reads by the
// business's country; what the receipt says itself (a decimal comma, a
// day over 12) comes first.
func TestParseForCountry(t *testing.T) {
	now := time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC)
	point := "CORNER SHOP\n03/04/2026 10:15\nTEA        2.50\nTOTAL      2.50\n"
	comma := "ECKLADEN\n03/04/2026 10:15\nTEE        2,50\nSUMME      2,50\n"
	late := "CORNER SHOP\n03/14/2026 10:15\nTEA        2.50\nTOTAL      2.50\n"
	tests := []struct {
		name, text, country, want string
	}{
		{"unknown country: month first", point, "", "2026-03-04"},
		{"United States: month first", point, "US", "2026-03-04"},
		{"United Kingdom: day first", point, "GB", "2026-04-03"},
		{"Germany, lower case: day first", point, "de", "2026-04-03"},
		{"a decimal comma: day first, whatever the country", comma, "US", "2026-04-03"},
		{"a month over 12 cannot be: day first is not forced", late, "GB", "2026-03-14"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := ParseFor(tt.text, now, Hints{Country: tt.country})
			if res.ProposedPaidAt == nil || res.ProposedPaidAt.Format(time.DateOnly) != tt.want {
				t.Fatalf("date %v, want %s", res.ProposedPaidAt, tt.want)
			}
			if res.ProposedAmountCents == nil || *res.ProposedAmountCents != 250 {
				t.Fatalf("total %v, want 2.50", res.ProposedAmountCents)
			}
		})
	}
}

// TestNamedDates: dates with a month's name, as receipts and invoices
// print them.
func TestNamedDates(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{"Server 12  Jun28'26 05:36P  Gst 2", "2026-06-28"},
		{"Th 34/1   Feb23-26 10:23AM", "2026-02-23"},
		{"0168 20:14 #04 MAR.26 REG", "2026-03-04"},
		{"Date 14-Mar-26 12:53:48P", "2026-03-14"},
		{"CARRY-OUT, SUN JUN 24 20:49:53 2026", "2026-06-24"},
		{"Factuurdatum: 29 maart 2026", "2026-03-29"},
		{"Date : 3 févr. 2026", "2026-02-03"},
		{"Fecha: 12 abr 2026", "2026-04-12"},
		{"Rechnungsdatum 7. Mai 2026", "2026-05-07"},
		{"CHK 4411  14 MAR 26  12:53", "2026-03-14"},
		// A month's name OCR read with a digit for a letter.
		{"0ct 12, 2026 6:30PM", "2026-10-12"},
		{"N0V 3 2026", "2026-11-03"},
		{"Ju1 4, 2026", "2026-07-04"},
		{"Date 12 5EP 2026", "2026-09-12"},
	} {
		got := findDates(c.line, false, testNow)
		if len(got) == 0 || got[0].date.Format(time.DateOnly) != c.want {
			t.Errorf("findDates(%q) = %v, want %s", c.line, got, c.want)
		}
	}
	// A named month with a two-digit year and no mark between them is
	// not a date ("6OCT 21,81" is an item).
	for _, line := range []string{"VITAMINS 6OCT 21,81", "MARGARINE 2 MAR 21.50", "1100 Main St 2026", "B0X 12 2026"} {
		if got := findDates(line, false, testNow); len(got) != 0 {
			t.Errorf("findDates(%q) = %v, want none", line, got)
		}
	}
}

// TestOCRDateRepairs: dates OCR damaged that a rule still reads, and
// look-alikes it must not.
func TestOCRDateRepairs(t *testing.T) {
	now := time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name, text, country, want string // want "": no date
	}{
		{"the 1 of month 10 read as a 4", "DINER 9\nServer: Ana\n40/29/2026 19:51\nPIE     4.50\nTOTAL   4.50", "US", "2026-10-29"},
		{"the 1 of month 11 read as a 7", "DINER 9\n71/05/2026 08:02 AM\nPIE     4.50\nTOTAL   4.50", "US", "2026-11-05"},
		{"a first number no month can be repaired to stays no date", "DINER 9\n45/12/2026\nPIE     4.50\nTOTAL   4.50", "US", ""},
		{"a two-digit year is not repaired", "DINER 9\n40/29/26\nPIE     4.50\nTOTAL   4.50", "US", ""},
		{"a date's digits read as letters, half of them", "DINER 9\nServer: Ana  O8/l2/2O26 4:44 PM\nPIE     4.50\nTOTAL   4.50", "US", "2026-08-12"},
		{"a date's digits read as letters, day first", "IMBISS\nDatum Ol.O5.2O26\nWurst     4,50\nSUMME     4,50", "DE", "2026-05-01"},
		{"a word with slashes is no date", "DINER 9\nI/O/SS\nPIE     4.50\nTOTAL   4.50", "US", ""},
		{"a time glued to the year", "DINER 9\n12/8/202604:44:05 PM\nPIE     4.50\nTOTAL   4.50", "US", "2026-12-08"},
		{"an ISO date and its time after a T", "DINER 9\nIssued 2026-03-14T08:15:00Z\nPIE     4.50\nTOTAL   4.50", "US", "2026-03-14"},
		{
			"a labelled day and month, the year mangled: the year of the receipt's other date",
			"GETRAENKE WEST\n02.05.26 16:15 8665 0176\nWasser        2,49\nSUMME         2,49\nKartenzahlung\nDatum:        01.05. 202¢\nUhrzeit:      16:19:51 Uhr",
			"DE", "2026-05-01",
		},
		{
			"a labelled day and month without any other date: none",
			"GETRAENKE WEST\nWasser        2,49\nSUMME         2,49\nDatum:        01.05. 202¢",
			"DE", "",
		},
		{
			"a labelled day and month months from the other date: the other date",
			"GETRAENKE WEST\n02.05.26 16:15 8665 0176\nWasser        2,49\nSUMME         2,49\nDatum:        01.09. 202¢",
			"DE", "2026-05-02",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := ParseFor(tt.text, now, Hints{Country: tt.country})
			got := ""
			if res.ProposedPaidAt != nil {
				got = res.ProposedPaidAt.Format(time.DateOnly)
			}
			if got != tt.want {
				t.Fatalf("date %q, want %q (%v)", got, tt.want, res.Reasons)
			}
		})
	}
}

// TestTotalArithmetic: totals that the other amounts decide when the
// total's line is misread or missing.
func TestTotalArithmetic(t *testing.T) {
	tests := []struct {
		name, text string
		want       money.Cents
	}{
		{
			// The service charge above the subtotal is in it: subtotal +
			// tax is the total, not subtotal + tax + the charge again.
			"a service charge above the subtotal is not added to it",
			"GRILL HOUSE\nBurger            5.99\nFries             2.49\nShake\nSERVICE CHARGE 2% 0.25\nSUB TTL          12.72\nTAX               1.05\nTutat            13.77",
			1377,
		},
		{
			"a total line holding the tax, the total under it",
			"CHICKEN SHACK\n2PC MEAL        5.99\nSWING MEAL      6.99\nSWING MEAL      6.99\nSMALL SIDE      1.19\nTOTAL           1.88\n               23.04",
			2304,
		},
		{
			"a total line's amount with a cash amount under it that is no sum stays the total",
			"CHICKEN SHACK\n2PC MEAL        5.99\nSWING MEAL      6.99\nTOTAL          12.98\n               20.00",
			1298,
		},
		{
			"no total line: the amount under the subtotal, its tax label misread",
			"TACO STAND\nTaco            3.49\nBurrito         8.99\nSUBTOTAL       12.48\nwax             1.03\nDRIVE THRU     13.51",
			1351,
		},
		{
			// The VAT table's second row checks by its rate (0,91 is 7 %
			// of 12,99); its gross, misread, does not count; the total
			// line and the card slip misread the same digit.
			"a total line with a digit misread, the VAT table checked by its rates",
			"FRISCHMARKT\nKAFFEE            4,49 B\nKAESE            13,90 A\nSUMME       EUR  13,39\nKARTE       EUR  13,39\nMwSt     Netto   MwSt   Brutto\nB 19,0%   3,77   0,72    4,49\nA 7,0%   12,99   0,91   13,60",
			1839,
		},
		{
			"a gross amount lost: net and tax at its rate",
			"BACKSTUBE\nBROT              3,20\nSUMME             5,20\nA 7%   4,86   0,34   S2O",
			520,
		},
		{
			// A fee no line names: subtotal + tax is read no better than
			// the total, and does not change its digit.
			"a total one digit from subtotal + tax stays",
			"DINER\nSoup             8.50\nSteak           12.00\nSubtotal        20.50\nTax              1.64\nTotal           25.14",
			2514,
		},
		{
			"cash rounded to 5 cents: the total two cents from the VAT table stays",
			"KAESEREI\nBergkaese       10,82\nTOTAL CHF       10,80\nA 2,6%   10,55   0,27   10,82",
			1080,
		},
		{
			// 13,39 is confirmed by the subtotal and tax: no digit is
			// changed.
			"a total line that the arithmetic confirms stays",
			"DINER\nSoup             6.50\nSteak           12.00\nSubtotal        12.39\nTax              1.00\nTotal           13.39\nSales Tax 8% 12.39 1.00",
			1339,
		},
		{
			"a fragment of the margin after the total's and the tax's amounts",
			"DINER\nSoup             8.50\nSteak           12.00\nSubtotal        20.50\nTax:      1.64       Tee\nTotal           22.14  Bae",
			2214,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Parse(tt.text, testNow)
			if res.ProposedAmountCents == nil || *res.ProposedAmountCents != tt.want {
				t.Fatalf("total %s, want %s (%v)", fmtCents(res.ProposedAmountCents), tt.want, res.Reasons)
			}
		})
	}
}

// TestClassifyShortLabels: shortened labels of a subtotal and a service
// charge.
func TestClassifyShortLabels(t *testing.T) {
	for _, c := range []struct {
		line string
		want lineKind
	}{
		{"SUB TTL                 31.24", kindSubtotal},
		{"Sub/Tt]                 31.24", kindSubtotal},
		{"SUBTTL                  31.24", kindSubtotal},
		{"1 SUB ZUCCHINI           2.49", kindOther},
		{"SERV. CHARGE( 2%)        0.61", kindTip},
		{"SVC CHARGE 18%           9.12", kindTip},
		{"CHANGE                   3.00", kindPayment},
		// A till's TTL is TOTAL; a label OCR split in two is read
		// whole.
		{"TTL                     12.50", kindTotal},
		{"TTL TAX                  1.00", kindTax},
		{"BAL DUE                 12.50", kindTotal},
		{"Tot al                  12.50", kindTotal},
		{"Su mme                  12,50", kindTotal},
		{"SUB TOT AL              11.50", kindSubtotal},
	} {
		if got := classify(fixDigits(c.line)); got != c.want {
			t.Errorf("classify(%q) = %v, want %v", c.line, got, c.want)
		}
	}
}

// TestVATRowsAndDigits: a VAT row checked by its rate when its gross is
// misread, and amounts one OCR digit apart.
func TestVATRowsAndDigits(t *testing.T) {
	rows := []struct {
		name  string
		rate  int64
		a     []money.Cents
		gross money.Cents
		ok    bool
	}{
		{"tax then net, 7 %", 7000, []money.Cents{68, 979, 1017}, 1047, true},
		{"net then tax, 19 %", 19000, []money.Cents{755, 144}, 899, true},
		{"tax rounded from the gross", 7000, []money.Cents{36, 511}, 547, true},
		{"8.875 %", 8875, []money.Cents{3505, 311}, 3816, true},
		{"no pair at the rate", 19000, []money.Cents{500, 120, 700}, 0, false},
		{"tax under five cents", 7000, []money.Cents{2, 30}, 0, false},
		{"no rate", 0, []money.Cents{68, 979}, 0, false},
	}
	for _, tt := range rows {
		t.Run(tt.name, func(t *testing.T) {
			g, ok := grossOfRate(tt.rate, tt.a)
			if g != tt.gross || ok != tt.ok {
				t.Errorf("grossOfRate(%d, %v) = %s, %v; want %s, %v", tt.rate, tt.a, g, ok, tt.gross, tt.ok)
			}
		})
	}
	digits := []struct {
		a, b money.Cents
		want bool
	}{
		{1946, 1916, true},
		{3893, 3803, true},
		{547, 517, true},
		{1946, 1964, false}, // two digits apart
		{1946, 946, false},  // a digit lost
		{1946, 1946, false},
		{5, 8, true},
	}
	for _, tt := range digits {
		if got := oneDigitApart(tt.a, tt.b); got != tt.want {
			t.Errorf("oneDigitApart(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestMarginTail: a short fragment a gap after a line's amount is the
// margin's; a number there is a column.
func TestMarginTail(t *testing.T) {
	for _, c := range []struct {
		raw, want string
		ok        bool
	}{
		{"Tax:      3.91       Tee", "Tax: 3.91", true},
		{"Sales Tax       $2.97     Ware 4", "Sales Tax $2.97", true},
		{"Order Balance due:     $45.79    &", "Order Balance due: $45.79", true},
		{"Summe       2,84      20,67       22 81", "", false},
		{"Tax          $0.62   5.0", "", false},
		{"Total 26.37 Bae", "", false}, // no gap: a word of the line
		{"Total          26.37", "", false},
	} {
		l := splitLines(c.raw)[0]
		got, ok := withoutMarginTail(l.raw, l.text)
		if ok != c.ok || ok && strings.Join(strings.Fields(got), " ") != c.want {
			t.Errorf("withoutMarginTail(%q) = %q, %v; want %q, %v", c.raw, got, ok, c.want, c.ok)
		}
	}
}
