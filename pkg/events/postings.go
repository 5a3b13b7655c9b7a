package events

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/tags"
)

// LedgerPosting is how a document service (customers & invoices, bills)
// asks the ledger to journal one of its documents: the entry the document
// stands for now. It rides in the document's events (the `posting` key of
// invoice.upserted, invoice_payment.deleted...) and the ledger keeps
// exactly one live entry per source (SourceType, SourceID):
//
//   - a posting with lines and a Version newer than the live entry's
//     replaces it (the live entry is reversed, the new one posted);
//   - a posting without lines (a voided or deleted document) reverses the
//     live entry and posts nothing;
//   - a posting whose Version is not newer than the live entry's changes
//     nothing (a redelivery or a stale event), so consuming is idempotent.
//
// Lines balance (debits = credits) and amounts are positive cents.
type LedgerPosting struct {
	SourceType string `json:"source_type"` // e.g. INVOICE, INVOICE_PAYMENT, INVOICE_WRITE_OFF
	SourceID   string `json:"source_id"`   // the document's id
	// Version grows with every change of the document (1, 2, ...).
	Version   int64         `json:"version"`
	EntryType string        `json:"entry_type"` // the ledger's entry type (INVOICE, INVOICE_PAYMENT, WRITE_OFF...)
	EntryAt   time.Time     `json:"entry_at"`   // when the entry counts (the invoice's sent_at, the payment's paid_at...)
	Memo      *string       `json:"memo"`
	Lines     []PostingLine `json:"lines"`
}

// PostingLine is one line of a LedgerPosting. Tags are the tags the
// amount carries (the document's merged with its line's).
type PostingLine struct {
	Account   PostingAccount  `json:"account"`
	Direction string          `json:"direction"` // DEBIT or CREDIT
	Amount    int64           `json:"amount"`
	Tags      []tags.KeyValue `json:"tags"`
}

// The kinds of PostingAccount.
const (
	PostingAccountID  = "AccountId"
	PostingStableName = "StableName"
	PostingTaxName    = "Tax_Name"
)

// PostingAccount names the account of a posting line: a ledger account by
// id or stable name, or (Tax_Name) the sub-account of SALES_TAXES_PAYABLE
// for a tax the business names, which the ledger creates on first use
// (stable name TaxAccountStableName(name)).
type PostingAccount struct {
	Type       string     `json:"type"`
	ID         *uuid.UUID `json:"id,omitempty"`
	StableName string     `json:"stable_name,omitempty"`
	Name       string     `json:"name,omitempty"`
}

// TaxAccountParent is the account tax accounts are created under.
const TaxAccountParent = "SALES_TAXES_PAYABLE"

// MaxTaxNameLength bounds a tax name.
const MaxTaxNameLength = 64

var taxNamePattern = regexp.MustCompile(`^[A-Z0-9][A-Z0-9_.-]*$`)

// NormalizeTaxName is the canonical form of a tax name: trimmed, upper
// case, runs of spaces as one underscore ("ca state" → "CA_STATE"). It
// fails unless the result is 1 to MaxTaxNameLength of A-Z 0-9 _ . -
// starting with a letter or digit, so every tax name makes a valid stable
// name.
func NormalizeTaxName(s string) (string, error) {
	n := strings.Join(strings.Fields(strings.ToUpper(s)), "_")
	if n == "" || len(n) > MaxTaxNameLength || !taxNamePattern.MatchString(n) {
		return "", fmt.Errorf("a tax name is 1 to %d of letters, digits, spaces, _ . - starting with a letter or digit", MaxTaxNameLength)
	}
	return n, nil
}

// TaxAccountStableName is the stable name of the account of tax name
// (already normalized): SALES_TAXES_PAYABLE:NAME, as the real product
// names them.
func TaxAccountStableName(name string) string { return TaxAccountParent + ":" + name }

// Check verifies what the ledger relies on: a source, a positive version,
// an entry type, known account kinds, DEBIT/CREDIT, positive amounts and
// balanced lines (or no lines at all).
func (p LedgerPosting) Check() error {
	if p.SourceType == "" || p.SourceID == "" || p.Version <= 0 || p.EntryType == "" || p.EntryAt.IsZero() {
		return fmt.Errorf("posting: source type, source id, a positive version, entry type and entry_at are required (%s %s v%d)",
			p.SourceType, p.SourceID, p.Version)
	}
	var sum int64
	for i, l := range p.Lines {
		switch l.Account.Type {
		case PostingAccountID:
			if l.Account.ID == nil {
				return fmt.Errorf("posting %s: line %d: AccountId without id", p.SourceID, i)
			}
		case PostingStableName:
			if l.Account.StableName == "" {
				return fmt.Errorf("posting %s: line %d: StableName without stable_name", p.SourceID, i)
			}
		case PostingTaxName:
			if _, err := NormalizeTaxName(l.Account.Name); err != nil {
				return fmt.Errorf("posting %s: line %d: %w", p.SourceID, i, err)
			}
		default:
			return fmt.Errorf("posting %s: line %d: unknown account type %q", p.SourceID, i, l.Account.Type)
		}
		if l.Amount <= 0 {
			return fmt.Errorf("posting %s: line %d: amount %d is not positive", p.SourceID, i, l.Amount)
		}
		switch l.Direction {
		case "DEBIT":
			sum += l.Amount
		case "CREDIT":
			sum -= l.Amount
		default:
			return fmt.Errorf("posting %s: line %d: direction %q", p.SourceID, i, l.Direction)
		}
	}
	if sum != 0 {
		return fmt.Errorf("posting %s: lines do not balance (debits − credits = %d)", p.SourceID, sum)
	}
	if len(p.Lines) == 1 {
		return fmt.Errorf("posting %s: one line cannot balance", p.SourceID)
	}
	return nil
}
