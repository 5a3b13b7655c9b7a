package domain

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Structure is a layout of the profit and loss: DEFAULT follows the chart
// of accounts; an industry structure regroups the cost of goods sold and
// the expenses into that industry's customary lines (structureTable). The
// sections' totals and the profits are the same whatever the structure:
// only the grouping changes.
type Structure string

// The structures of the spec.
const (
	StructureDefault           Structure = "DEFAULT"
	StructureTrucking          Structure = "TRUCKING"
	StructureMedspa            Structure = "MEDSPA"
	StructureMedspaNoLicensing Structure = "MEDSPA_NO_LICENSING"
	StructureCitrus            Structure = "CITRUS"
	StructureCitrusNoLicensing Structure = "CITRUS_NO_LICENSING"
	StructureFlorist           Structure = "FLORIST"
)

// structureValues is the error text of an unknown structure.
const structureValues = "must be one of DEFAULT, TRUCKING, MEDSPA, MEDSPA_NO_LICENSING, CITRUS, CITRUS_NO_LICENSING, FLORIST"

// Structures is every structure, in the spec's order.
var Structures = []Structure{StructureDefault, StructureTrucking, StructureMedspa, StructureMedspaNoLicensing,
	StructureCitrus, StructureCitrusNoLicensing, StructureFlorist}

// ParseStructure reads a structure; empty is DEFAULT.
func ParseStructure(s string) (Structure, bool) {
	if s == "" {
		return StructureDefault, true
	}
	if st := Structure(s); slices.Contains(Structures, st) {
		return st, true
	}
	return "", false
}

// StructureLine is a line of a structure's section. An account matches it
// by its stable name (StableNames) or by its name: a keyword matching the
// start of one of the name's words, case-insensitively ("licens" matches
// "Licenses & permits", "tire" does not match "Retirement plan").
type StructureLine struct {
	Name        string // SCREAMING_SNAKE, the line item's name
	DisplayName string
	StableNames []string
	Keywords    []string // lower case
}

// Layout is a structure's lines of one section, in order, and Other, the
// line of the accounts no line matches.
type Layout struct {
	Lines []StructureLine
	Other StructureLine
}

// Layout is the section's layout under s; nil when s follows the chart
// there (DEFAULT, and the income and taxes of every structure).
func (s Structure) Layout(sec Section) *Layout {
	l, ok := structureTable[s][sec]
	if !ok {
		return nil
	}
	return &l
}

// place is the line of the account chain[len(chain)-1] (chain: its
// ancestors, root first, then itself; chain[at] is the section's account)
// as an index into l.Lines (len(l.Lines) for Other), and the index in
// chain of the first account shown under the line. An account goes to the
// first line it matches itself, else to its parent's line (an account
// inherits the line of its nearest ancestor that matches one), else to
// Other; below the line, it is shown under its ancestors of the same line,
// as the chart nests them. The section's account itself goes to Other.
func (l *Layout) place(chain []Account, at int) (line, from int) {
	last := len(chain) - 1
	if last <= at {
		return len(l.Lines), at
	}
	lines := make([]int, len(chain))
	lines[at] = len(l.Lines)
	for j := at + 1; j <= last; j++ {
		lines[j] = lines[j-1]
		if i := l.match(chain[j]); i >= 0 {
			lines[j] = i
		}
	}
	from = last
	for from-1 > at && lines[from-1] == lines[last] {
		from--
	}
	return lines[last], from
}

// match is the index of the first line a matches itself, else -1.
func (l *Layout) match(a Account) int {
	for i, line := range l.Lines {
		if a.StableName != nil && slices.Contains(line.StableNames, *a.StableName) {
			return i
		}
		for _, kw := range line.Keywords {
			if hasWordPrefix(a.Name, kw) {
				return i
			}
		}
	}
	return -1
}

// hasWordPrefix reports whether kw (lower case) starts a word of name,
// case-insensitively.
func hasWordPrefix(name, kw string) bool {
	name = strings.ToLower(name)
	for i := 0; i <= len(name); {
		j := strings.Index(name[i:], kw)
		if j < 0 {
			return false
		}
		j += i
		prev, _ := utf8.DecodeLastRuneInString(name[:j])
		if j == 0 || !unicode.IsLetter(prev) && !unicode.IsDigit(prev) {
			return true
		}
		i = j + 1
	}
	return false
}

func row(name, display string, stableNames []string, keywords ...string) StructureLine {
	return StructureLine{Name: name, DisplayName: display, StableNames: stableNames, Keywords: keywords}
}

func stable(names ...string) []string { return names }

var (
	otherCOGS     = row("OTHER_COST_OF_GOODS_SOLD", "Other cost of goods sold", nil)
	otherExpenses = row("OTHER_EXPENSES", "Other expenses", nil)
)

// The industry structures: per section, the customary lines in the order
// they are shown (the first an account matches wins). The stable names are
// the default chart's (services/transactions' chart.go); the keywords catch
// the accounts a platform or a bookkeeper creates ("Diesel fuel" is FUEL).
var (
	truckingLayout = map[Section]Layout{
		SectionCOGS: {Lines: []StructureLine{
			row("FUEL", "Fuel", nil, "fuel", "diesel", "gasoline"),
			row("DRIVER_WAGES", "Driver wages", nil, "driver"),
			row("PURCHASED_TRANSPORTATION", "Purchased transportation", nil, "purchased transportation", "subhaul", "owner operator", "owner-operator"),
		}, Other: otherCOGS},
		SectionExpenses: {Lines: []StructureLine{
			row("FUEL", "Fuel", nil, "fuel", "diesel", "gasoline"),
			row("TOLLS_AND_SCALES", "Tolls & scales", nil, "toll", "scale", "weigh station"),
			row("REPAIRS_AND_MAINTENANCE", "Repairs & maintenance", nil, "repair", "maintenance", "tire", "tyre", "oil change", "mechanic", "truck wash"),
			row("INSURANCE", "Insurance", stable("INSURANCE"), "insurance"),
			row("TRUCK_PAYMENTS_AND_LEASE", "Truck payments & lease", nil, "truck payment", "truck loan", "truck lease", "trailer lease", "tractor lease", "equipment lease"),
			row("DRIVER_WAGES", "Driver wages", stable("PAYROLL"), "driver", "wage"),
			row("PERMITS_AND_LICENSING", "Permits & licensing", nil, "permit", "licens", "ifta", "irp", "ucr", "heavy vehicle use", "registration"),
			row("MEALS_AND_PER_DIEM", "Meals & per diem", stable("MEALS", "TRAVEL"), "per diem", "meal", "lodging"),
			row("ELD_PHONE_AND_SOFTWARE", "ELD, phone & software", stable("PHONE", "SOFTWARE"), "eld", "dispatch", "load board"),
		}, Other: otherExpenses},
	}

	medspaLayout = map[Section]Layout{
		SectionCOGS: {Lines: []StructureLine{
			row("INJECTABLES_AND_PRODUCTS", "Injectables & product costs", stable("ITEMS_FOR_RESALE"),
				"injectable", "botox", "neurotoxin", "filler", "dermal", "skincare", "product"),
			row("MEDICAL_SUPPLIES", "Medical supplies", stable("MATERIALS"), "medical suppl", "suppl", "syringe", "needle", "glove"),
			row("PROVIDER_COMPENSATION", "Provider compensation", nil, "provider", "injector", "nurse", "commission"),
		}, Other: otherCOGS},
		SectionExpenses: {Lines: []StructureLine{
			row("PAYROLL_AND_PROVIDERS", "Payroll & provider compensation", stable("PAYROLL"),
				"provider", "injector", "nurse", "esthetician", "aesthetician", "commission"),
			row("LICENSING_AND_MEDICAL_DIRECTOR", "Licensing & medical director fees", nil,
				"licens", "medical director", "permit", "credential", "certification"),
			row("INJECTABLES_AND_PRODUCTS", "Injectables & product costs", nil, "injectable", "botox", "neurotoxin", "filler", "dermal", "skincare", "product cost"),
			row("MEDICAL_SUPPLIES", "Medical supplies", nil, "medical suppl", "syringe", "needle", "glove"),
			row("EQUIPMENT", "Equipment & lasers", stable("EQUIPMENT"), "laser", "equipment", "device"),
			row("RENT_AND_FACILITY", "Rent & facility", stable("RENT", "UTILITIES"), "rent", "lease", "utilit"),
			row("MARKETING", "Marketing & advertising", stable("MARKETING"), "marketing", "advertis", "promotion"),
			row("INSURANCE", "Insurance & malpractice", stable("INSURANCE"), "insurance", "malpractice"),
			row("SOFTWARE_AND_BOOKING", "Software & booking", stable("SOFTWARE"), "software", "booking"),
			row("MERCHANT_AND_BANK_FEES", "Merchant & bank fees", stable("FEES"), "merchant", "card processing"),
		}, Other: otherExpenses},
	}

	citrusLayout = map[Section]Layout{
		SectionCOGS: {Lines: []StructureLine{
			row("FERTILIZER", "Fertilizer & soil amendments", nil, "fertiliz", "nutrient", "lime", "compost", "soil"),
			row("PEST_AND_DISEASE_CONTROL", "Pest & disease control", nil, "pesticid", "herbicid", "fungicid", "insecticid", "spray", "psyllid", "greening"),
			row("IRRIGATION", "Irrigation & water", nil, "irrigat", "water", "pump"),
			row("PICKING_AND_HAULING", "Picking & hauling", nil, "picking", "picker", "harvest", "haul"),
			row("GROVE_LABOR", "Grove labor", nil, "labor", "labour", "grove care", "caretak"),
			row("TREES_AND_NURSERY", "Trees & nursery stock", nil, "tree", "nursery", "seedling", "rootstock"),
			row("GROVE_SUPPLIES", "Grove supplies", stable("MATERIALS"), "suppl"),
		}, Other: otherCOGS},
		SectionExpenses: {Lines: []StructureLine{
			row("FERTILIZER", "Fertilizer & soil amendments", nil, "fertiliz", "nutrient", "lime", "compost", "soil"),
			row("PEST_AND_DISEASE_CONTROL", "Pest & disease control", nil, "pesticid", "herbicid", "fungicid", "insecticid", "spray", "psyllid", "greening"),
			row("IRRIGATION", "Irrigation & water", nil, "irrigat", "water", "pump"),
			row("PICKING_AND_HAULING", "Picking & hauling", nil, "picking", "picker", "harvest", "haul"),
			row("LABOR_AND_PAYROLL", "Labor & payroll", stable("PAYROLL"), "labor", "labour", "wage"),
			row("LICENSING_AND_INSPECTION", "Licensing & inspection fees", nil, "licens", "inspect", "permit", "certif", "registration"),
			row("EQUIPMENT_FUEL_AND_REPAIRS", "Equipment, fuel & repairs", stable("EQUIPMENT"), "equipment", "tractor", "fuel", "diesel", "repair"),
			row("LAND_RENT_AND_LEASES", "Land rent & leases", stable("RENT"), "rent", "lease"),
			row("INSURANCE", "Crop & general insurance", stable("INSURANCE"), "insurance"),
			row("UTILITIES", "Utilities", stable("UTILITIES", "PHONE"), "utilit", "electric"),
		}, Other: otherExpenses},
	}

	floristLayout = map[Section]Layout{
		SectionCOGS: {Lines: []StructureLine{
			row("WIRE_SERVICE_FEES", "Wire service fees", nil, "wire service", "ftd", "teleflora", "bloomnet"),
			row("FLOWERS_AND_PLANTS", "Flowers & plants", stable("ITEMS_FOR_RESALE"), "flower", "floral", "plant", "stem", "rose", "greenery", "bloom"),
			row("FLORAL_SUPPLIES", "Floral supplies & containers", stable("MATERIALS"), "vase", "container", "ribbon", "floral foam", "floral wire", "wrap", "basket", "suppl"),
		}, Other: otherCOGS},
		SectionExpenses: {Lines: []StructureLine{
			row("WIRE_SERVICE_FEES", "Wire service fees", nil, "wire service", "ftd", "teleflora", "bloomnet"),
			row("FLOWERS_AND_PLANTS", "Flowers & plants", nil, "flower", "floral", "plant", "stem", "rose", "greenery", "bloom"),
			row("DELIVERY", "Delivery & vehicles", nil, "deliver", "courier", "vehicle", "van", "fuel", "gas", "mileage"),
			row("PAYROLL_AND_DESIGNERS", "Payroll & designers", stable("PAYROLL"), "designer", "wage"),
			row("RENT_AND_UTILITIES", "Rent & utilities", stable("RENT", "UTILITIES"), "rent", "lease", "utilit", "cooler"),
			row("MARKETING", "Marketing & advertising", stable("MARKETING"), "marketing", "advertis"),
			row("INSURANCE", "Insurance", stable("INSURANCE"), "insurance"),
			row("MERCHANT_AND_BANK_FEES", "Merchant & bank fees", stable("FEES"), "merchant", "card processing"),
		}, Other: otherExpenses},
	}

	structureTable = map[Structure]map[Section]Layout{
		StructureTrucking:          truckingLayout,
		StructureMedspa:            medspaLayout,
		StructureMedspaNoLicensing: withoutLine(medspaLayout, "LICENSING_AND_MEDICAL_DIRECTOR"),
		StructureCitrus:            citrusLayout,
		StructureCitrusNoLicensing: withoutLine(citrusLayout, "LICENSING_AND_INSPECTION"),
		StructureFlorist:           floristLayout,
	}
)

// withoutLine is layout without the lines named name: their accounts go
// to the next line they match, else their parent's, else Other.
func withoutLine(layout map[Section]Layout, name string) map[Section]Layout {
	out := make(map[Section]Layout, len(layout))
	for sec, l := range layout {
		out[sec] = Layout{Lines: slices.DeleteFunc(slices.Clone(l.Lines), func(x StructureLine) bool { return x.Name == name }), Other: l.Other}
	}
	return out
}
