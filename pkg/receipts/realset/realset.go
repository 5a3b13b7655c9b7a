// Package realset reads the real receipts' ground truth
// (pkg/receipts/testdata/real: one folder per kind of receipt, each with
// a truth.jsonl), for the accuracy test and the receipts benchmark.
package realset

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/acctsuite/acct/pkg/money"
)

// Receipt is one file with its truth.
type Receipt struct {
	Folder   string // the kind: us-restaurants, de-retail, pdf-invoices
	File     string
	Path     string      // the file, under the set's folder
	Total    money.Cents // the total to the cent
	Date     string      // YYYY-MM-DD, "" when the receipt prints none
	Vendor   string
	Currency string // ISO 4217, as printed
}

// Country is the country of a business that would file r: one whose
// currency r is in (a euro receipt's business reads dates as every euro
// country does, day first); "" for a currency not listed.
func (r Receipt) Country() string {
	return map[string]string{"USD": "US", "EUR": "DE", "GBP": "GB", "INR": "IN", "CHF": "CH", "CAD": "CA", "AUD": "AU"}[r.Currency]
}

// Load reads every folder's truth.jsonl under dir, folders in name order.
func Load(dir string) ([]Receipt, error) {
	truths, err := filepath.Glob(filepath.Join(dir, "*", "truth.jsonl"))
	if err != nil || len(truths) == 0 {
		return nil, fmt.Errorf("no real receipts in %s (no */truth.jsonl): %v", dir, err)
	}
	sort.Strings(truths)
	var out []Receipt
	for _, t := range truths {
		rs, err := loadFolder(t)
		if err != nil {
			return nil, err
		}
		out = append(out, rs...)
	}
	return out, nil
}

func loadFolder(truth string) ([]Receipt, error) {
	f, err := os.Open(truth)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	folder := filepath.Dir(truth)
	var out []Receipt
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var tr struct {
			File     string `json:"file"`
			Total    string `json:"total_norm"`
			Date     string `json:"date_iso"`
			Vendor   string `json:"vendor"`
			Currency string `json:"currency"`
		}
		if err := json.Unmarshal(sc.Bytes(), &tr); err != nil {
			return nil, fmt.Errorf("%s: %w", truth, err)
		}
		total, err := money.Parse(tr.Total)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: total %q: %w", truth, tr.File, tr.Total, err)
		}
		out = append(out, Receipt{Folder: filepath.Base(folder), File: tr.File, Path: filepath.Join(folder, tr.File),
			Total: total, Date: tr.Date, Vendor: tr.Vendor, Currency: tr.Currency})
	}
	return out, sc.Err()
}
