package domain

import (
	_ "embed"
	"strings"
)

// The real ISO 3166-1 alpha-2 country codes (249 officially assigned) and
// USPS state/territory codes (50 states, DC, territories, military).
var (
	//go:embed iso3166.txt
	iso3166File string
	//go:embed usps.txt
	uspsFile string

	countryCodes = codeSet(iso3166File)
	usStateCodes = codeSet(uspsFile)
)

func codeSet(list string) map[string]struct{} {
	set := map[string]struct{}{}
	for _, c := range strings.Fields(list) {
		set[c] = struct{}{}
	}
	return set
}

// IsCountryCode reports whether c is an assigned ISO 3166-1 alpha-2 code.
func IsCountryCode(c string) bool { _, ok := countryCodes[c]; return ok }

// IsUSState reports whether s is a USPS state or territory code.
func IsUSState(s string) bool { _, ok := usStateCodes[s]; return ok }
