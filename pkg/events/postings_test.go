package events

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

func TestNormalizeTaxName(t *testing.T) {
	for in, want := range map[string]string{
		"CA_STATE": "CA_STATE", " ca  state ": "CA_STATE", "gst-hst.1": "GST-HST.1", "vat": "VAT",
	} {
		if got, err := NormalizeTaxName(in); err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "   ", "_LEADING", "A:B", "ÉTAT", "x/y", strings.Repeat("A", MaxTaxNameLength+1)} {
		if got, err := NormalizeTaxName(bad); err == nil {
			t.Errorf("%q accepted as %q", bad, got)
		}
	}
	if got := TaxAccountStableName("CA_STATE"); got != "SALES_TAXES_PAYABLE:CA_STATE" {
		t.Errorf("stable name %q", got)
	}
}

func TestLedgerPostingCheck(t *testing.T) {
	id := uuid.New()
	line := func(typ, dir string, amount int64) PostingLine {
		a := PostingAccount{Type: typ}
		switch typ {
		case PostingAccountID:
			a.ID = &id
		case PostingStableName:
			a.StableName = "SALES"
		case PostingTaxName:
			a.Name = "vat"
		}
		return PostingLine{Account: a, Direction: dir, Amount: amount}
	}
	ok := LedgerPosting{SourceType: "INVOICE", SourceID: "i-1", Version: 1, EntryType: "INVOICE", EntryAt: time.Now(),
		Lines: []PostingLine{line(PostingAccountID, "DEBIT", 30), line(PostingStableName, "CREDIT", 20), line(PostingTaxName, "CREDIT", 10)}}
	if err := ok.Check(); err != nil {
		t.Fatalf("valid posting: %v", err)
	}
	reversal := ok
	reversal.Lines = nil
	if err := reversal.Check(); err != nil {
		t.Fatalf("a posting without lines (a void) is valid: %v", err)
	}
	tests := map[string]func(p *LedgerPosting){
		"no source id":       func(p *LedgerPosting) { p.SourceID = "" },
		"version 0":          func(p *LedgerPosting) { p.Version = 0 },
		"no entry type":      func(p *LedgerPosting) { p.EntryType = "" },
		"no entry_at":        func(p *LedgerPosting) { p.EntryAt = time.Time{} },
		"unbalanced":         func(p *LedgerPosting) { p.Lines[0].Amount = 31 },
		"zero amount":        func(p *LedgerPosting) { p.Lines[2].Amount = 0; p.Lines[0].Amount = 20 },
		"bad direction":      func(p *LedgerPosting) { p.Lines[1].Direction = "LEFT" },
		"unknown kind":       func(p *LedgerPosting) { p.Lines[1].Account.Type = "Iban" },
		"AccountId, no id":   func(p *LedgerPosting) { p.Lines[0].Account.ID = nil },
		"bad tax name":       func(p *LedgerPosting) { p.Lines[2].Account.Name = "??" },
		"StableName, empty":  func(p *LedgerPosting) { p.Lines[1].Account.StableName = "" },
		"one line":           func(p *LedgerPosting) { p.Lines = p.Lines[:1]; p.Lines[0].Amount = 0 },
		"one balanced line?": func(p *LedgerPosting) { p.Lines = []PostingLine{line(PostingStableName, "DEBIT", 5)} },
	}
	for name, mod := range tests {
		p := ok
		p.Lines = append([]PostingLine(nil), ok.Lines...)
		mod(&p)
		if err := p.Check(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
