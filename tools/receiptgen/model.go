package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// Item is one product line of a receipt, as the ground truth records it.
type Item struct {
	Description string `json:"description"`
	AmountCents int64  `json:"amount_cents"`
}

// Truth is the ground truth of one corpus file.
type Truth struct {
	File       string  `json:"file"`
	Format     string  `json:"format"` // png, jpeg, pdf-scan, pdf-text
	Vendor     string  `json:"vendor"`
	Date       string  `json:"date"` // YYYY-MM-DD
	TotalCents int64   `json:"total_cents"`
	LineItems  []Item  `json:"line_items"`
	Font       string  `json:"font"`
	Layout     string  `json:"layout"`
	Rotation   float64 `json:"rotation_degrees"`
}

// align of a printed line.
type align int

const (
	alignLeft align = iota
	alignCenter
)

// line is one printed line: left text, optional right-aligned text.
type line struct {
	left, right string
	align       align
	big         bool // the header's vendor name: larger, maybe bold
}

type vendorKind struct {
	names []string
	items []string
	min   int64 // cents
	max   int64
}

var kinds = []vendorKind{
	{[]string{"Blue Bottle Coffee", "Morning Grind Cafe", "Bean There Espresso", "The Daily Cup"},
		[]string{"Latte", "Cappuccino", "Americano", "Blueberry Muffin", "Croissant", "Cold Brew", "Chai Latte", "Bagel w Cream Cheese", "Espresso", "Oat Milk"}, 250, 850},
	{[]string{"Green Leaf Market", "Fresh Fields Grocery", "Valley Food Mart", "Corner Grocer"},
		[]string{"Bananas", "Whole Milk 1 Gal", "Large Eggs Dozen", "Sourdough Bread", "Chicken Breast", "Baby Spinach", "Cheddar Cheese", "Orange Juice", "Ground Coffee", "Greek Yogurt", "Paper Towels", "Pasta Sauce"}, 129, 1499},
	{[]string{"Hardware Depot", "Ace Tool Supply", "Builders Warehouse", "Northside Lumber"},
		[]string{"Wood Screws 2in", "Drill Bit Set", "Paint Roller", "Interior Paint Gal", "Duct Tape", "Work Gloves", "Extension Cord 25ft", "Nails 2lb", "PVC Pipe 10ft", "Circular Saw"}, 299, 18999},
	{[]string{"Office Supply Co", "Paper Plus", "Desk and Ink"},
		[]string{"Copy Paper Case", "Ballpoint Pens 12pk", "Stapler", "Toner Cartridge", "Sticky Notes", "File Folders", "Printer Ink Black", "Desk Organizer"}, 199, 8999},
	{[]string{"Joe's Diner", "Pasta Palace", "Golden Dragon Restaurant", "Taco Fiesta", "The Burger Joint"},
		[]string{"Cheeseburger", "French Fries", "Caesar Salad", "Spaghetti Bolognese", "Iced Tea", "Chicken Tacos", "Soup of the Day", "Fish and Chips", "Lemonade", "Apple Pie"}, 295, 2495},
	{[]string{"Metro Fuel", "Quick Stop Gas", "Highway Petroleum"},
		[]string{"Unleaded Fuel", "Diesel", "Car Wash Deluxe", "Windshield Fluid", "Snack Bar", "Bottled Water"}, 150, 8500},
	{[]string{"City Books", "Riverside Pharmacy", "Sunrise Bakery", "Print Shop Express"},
		[]string{"Hardcover Novel", "Notebook", "Greeting Card", "Vitamins 60ct", "Pain Reliever", "Baguette", "Cinnamon Roll", "Birthday Cake", "Business Cards 500", "Poster Print"}, 199, 4999},
}

var streets = []string{"123 Main St", "45 Oak Avenue", "900 Market Street", "17 Harbor Blvd", "2200 Elm Rd Suite 4", "8 Station Square"}
var cities = []string{"Springfield, IL 62704", "Portland, OR 97205", "Austin, TX 78701", "Madison, WI 53703", "Denver, CO 80202", "Boston, MA 02110"}
var euCities = []string{"10115 Berlin", "75002 Paris", "1010 Wien", "20121 Milano"}

// style is how one receipt prints its numbers and labels.
type style struct {
	eu         bool   // 12,34 and dd.mm.yyyy
	dollar     string // "", "$", "$ "
	dateFmt    int
	totalLabel string
	taxLabel   string
	upper      bool
	tip        bool
	tax        bool
	qtyLines   bool // some items as "2 x Latte" with the line total
	twoLine    bool // some items as "Latte" then "  2 @ 4.50   9.00"
	flags      bool // a tax flag after the amount: "3.49 T"
	table      bool // Item / Qty / Price / Amount columns
	payment    string
	header     int
}

func money(c int64, st style) string {
	neg := c < 0
	if neg {
		c = -c
	}
	whole, frac := c/100, c%100
	ws := fmt.Sprint(whole)
	sep := ","
	dec := "."
	if st.eu {
		sep, dec = ".", ","
	}
	if whole >= 1000 {
		ws = fmt.Sprintf("%d%s%03d", whole/1000, sep, whole%1000)
	}
	s := fmt.Sprintf("%s%s%02d", ws, dec, frac)
	if neg {
		s = "-" + s
	}
	return st.dollar + s
}

var dateFormats = []string{
	"01/02/2006", "2006-01-02", "Jan 2 2006", "02 Jan 2006", "January 2, 2006", "Mon, 02 Jan 2006", "01/02/2006 15:04", "2006-01-02 15:04:05", "Jan 02, 2006 3:04 PM",
}
var euDateFormats = []string{"02.01.2006", "02.01.2006 15:04", "02/01/2006", "2006-01-02"}

// receipt builds one receipt's printed lines and its ground truth.
func receipt(rng *rand.Rand, n int) ([]line, Truth, style) {
	k := kinds[rng.IntN(len(kinds))]
	vendor := k.names[rng.IntN(len(k.names))]
	st := style{
		eu:       rng.IntN(6) == 0,
		upper:    rng.IntN(2) == 0,
		tax:      rng.IntN(4) != 0,
		tip:      rng.IntN(5) == 0,
		qtyLines: rng.IntN(3) == 0,
		twoLine:  rng.IntN(6) == 0,
		flags:    rng.IntN(6) == 0,
		table:    rng.IntN(7) == 0,
		header:   rng.IntN(4),
	}
	switch rng.IntN(6) {
	case 0:
		st.dollar = "$"
	case 1:
		st.dollar = "$ "
	}
	if st.eu {
		st.dollar = ""
		st.dateFmt = rng.IntN(len(euDateFormats))
		st.twoLine, st.table = false, false
	} else {
		st.dateFmt = rng.IntN(len(dateFormats))
	}
	st.totalLabel = []string{"TOTAL", "Total", "TOTAL DUE", "AMOUNT DUE", "BALANCE DUE", "Grand Total", "Total Amount"}[rng.IntN(7)]
	if st.eu && rng.IntN(2) == 0 {
		st.totalLabel = "TOTAL EUR"
	}
	st.taxLabel = []string{"Tax", "Sales Tax", "TAX 8.25%", "VAT 20%", "Tax (7%)"}[rng.IntN(5)]
	st.payment = []string{"VISA", "MASTERCARD", "CASH", "AMEX", "DEBIT CARD"}[rng.IntN(5)]

	date := time.Date(2025, 1, 1, 8, 0, 0, 0, time.UTC).
		AddDate(0, 0, rng.IntN(540)).Add(time.Duration(rng.IntN(12*60)) * time.Minute)
	t := Truth{Vendor: vendor, Date: date.Format("2006-01-02")}

	up := func(s string) string {
		if st.upper {
			return strings.ToUpper(s)
		}
		return s
	}
	var ls []line
	// Header.
	switch st.header {
	case 0:
		ls = append(ls, line{left: up(vendor), align: alignCenter, big: true})
	case 1:
		ls = append(ls, line{left: up(vendor), align: alignCenter, big: true},
			line{left: fmt.Sprintf("Store #%d", 100+rng.IntN(9000)), align: alignCenter})
	case 2:
		ls = append(ls, line{left: "Welcome to", align: alignCenter}, line{left: up(vendor), align: alignCenter, big: true})
	case 3:
		ls = append(ls, line{left: up(vendor), align: alignLeft, big: true})
	}
	if st.eu {
		ls = append(ls, line{left: streets[rng.IntN(len(streets))], align: alignCenter},
			line{left: euCities[rng.IntN(len(euCities))], align: alignCenter})
	} else {
		ls = append(ls, line{left: streets[rng.IntN(len(streets))], align: alignCenter},
			line{left: cities[rng.IntN(len(cities))], align: alignCenter})
	}
	phone := fmt.Sprintf("(%d) %d-%04d", 200+rng.IntN(700), 200+rng.IntN(700), rng.IntN(10000))
	if rng.IntN(2) == 0 {
		phone = "Tel: " + phone
	}
	ls = append(ls, line{left: phone, align: alignCenter}, line{})

	var ds string
	if st.eu {
		ds = date.Format(euDateFormats[st.dateFmt])
	} else {
		ds = date.Format(dateFormats[st.dateFmt])
	}
	switch rng.IntN(3) {
	case 0:
		ls = append(ls, line{left: "Date: " + ds})
	case 1:
		ls = append(ls, line{left: ds, right: fmt.Sprintf("Reg %d", 1+rng.IntN(9))})
	default:
		ls = append(ls, line{left: "Receipt #" + fmt.Sprint(10000+rng.IntN(90000))}, line{left: up("Date") + " " + ds})
	}
	if rng.IntN(2) == 0 {
		ls = append(ls, line{left: fmt.Sprintf("Cashier: %s", []string{"Maria", "Tom", "Alex", "Sam"}[rng.IntN(4)])})
	}
	ls = append(ls, line{})
	if st.table {
		ls = append(ls, line{left: up("Item") + "        Qty  Price", right: up("Amount")})
	}

	// Items.
	nItems := 1 + rng.IntN(7)
	used := map[string]bool{}
	var sub int64
	for i := 0; i < nItems; i++ {
		desc := k.items[rng.IntN(len(k.items))]
		if used[desc] {
			continue
		}
		used[desc] = true
		unit := k.min + rng.Int64N(k.max-k.min+1)
		qty := int64(1)
		if rng.IntN(4) == 0 {
			qty = 2 + rng.Int64N(3)
		}
		amt := unit * qty
		sub += amt
		t.LineItems = append(t.LineItems, Item{Description: desc, AmountCents: amt})
		right := money(amt, st)
		if st.flags {
			right += " " + []string{"T", "N", "A"}[rng.IntN(3)]
		}
		d := up(desc)
		switch {
		case st.table:
			ls = append(ls, line{left: fmt.Sprintf("%-14s %d  %s", d, qty, money(unit, style{eu: st.eu})), right: right})
		case qty > 1 && st.twoLine:
			ls = append(ls, line{left: d}, line{left: fmt.Sprintf("   %d @ %s", qty, money(unit, style{eu: st.eu})), right: right})
		case qty > 1 && st.qtyLines:
			ls = append(ls, line{left: fmt.Sprintf("%d x %s", qty, d), right: right})
		case qty > 1:
			ls = append(ls, line{left: fmt.Sprintf("%s %d x %s", d, qty, money(unit, style{eu: st.eu})), right: right})
		default:
			ls = append(ls, line{left: d, right: right})
		}
	}
	ls = append(ls, line{})
	total := sub
	if st.tax || st.tip {
		ls = append(ls, line{left: up("Subtotal"), right: money(sub, st)})
	}
	if st.tax {
		tax := sub * int64(5+rng.IntN(6)) / 100
		total += tax
		ls = append(ls, line{left: up(st.taxLabel), right: money(tax, st)})
	}
	if st.tip {
		tip := sub * int64(10+rng.IntN(11)) / 100
		total += tip
		ls = append(ls, line{left: up("Tip"), right: money(tip, st)})
	}
	ls = append(ls, line{left: up(st.totalLabel), right: money(total, st)}, line{})
	t.TotalCents = total

	// Payment.
	switch st.payment {
	case "CASH":
		paid := (total/2000 + 1) * 2000
		ls = append(ls, line{left: up("Cash"), right: money(paid, st)}, line{left: up("Change"), right: money(paid-total, st)})
	default:
		ls = append(ls, line{left: fmt.Sprintf("%s ****%04d", st.payment, rng.IntN(10000)), right: money(total, st)})
		if rng.IntN(2) == 0 {
			ls = append(ls, line{left: fmt.Sprintf("Auth code: %06d", rng.IntN(1000000))})
		}
	}
	ls = append(ls, line{}, line{left: fmt.Sprintf("Items sold: %d", len(t.LineItems)), align: alignCenter})
	ls = append(ls, line{left: []string{"Thank you for shopping with us!", "THANK YOU", "Please come again", "Keep this receipt for returns"}[rng.IntN(4)], align: alignCenter})
	if rng.IntN(3) == 0 {
		ls = append(ls, line{left: fmt.Sprintf("Trans %d  %s", 100000+rng.IntN(900000), date.Format("15:04")), align: alignCenter})
	}
	t.Layout = fmt.Sprintf("header%d eu=%v table=%v twoLine=%v flags=%v tax=%v tip=%v", st.header, st.eu, st.table, st.twoLine, st.flags, st.tax, st.tip)
	return ls, t, st
}
