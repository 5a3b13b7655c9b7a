package banking

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"
)

// BankTransaction is a bank transaction as stored, with its tags.
type BankTransaction struct {
	ID                  uuid.UUID
	BusinessID          uuid.UUID
	Source              Source
	SourceTransactionID string
	SourceAccountID     *string
	ExternalID          *string // CUSTOM transactions: the caller's id
	CustomAccountID     *uuid.UUID
	ExternalAccountID   *uuid.UUID
	LedgerAccountID     uuid.UUID // the bank account's ledger account
	AccountName         *string
	AccountMask         *string
	InstitutionName     *string
	// TransactionType is the bank's or provider's kind of transaction
	// ("Book"...), as imported; nil when none was given.
	TransactionType  *string
	Date             time.Time
	Direction        Direction
	Amount           money.Cents
	CounterpartyName *string
	Description      *string
	ReferenceNumber  *string
	Memo             *string
	Metadata         json.RawMessage
	Status           CategorizationStatus
	Method           *CategorizationMethod
	Category         *TxnCategory
	TaxCode          *string
	// The customer or vendor the caller linked the transaction to (record
	// requests): kept as given, resolved by the services that own them.
	CustomerID         *uuid.UUID
	CustomerExternalID *string
	VendorID           *uuid.UUID
	VendorExternalID   *string
	Tags               []tags.Tag
	// DocumentIDs are the live documents (receipts), oldest first.
	DocumentIDs []uuid.UUID
	// Suggestions are the categories offered while uncategorized (filled
	// by the reads, not stored).
	Suggestions []TxnCategoryEntry
	// Match is the confirmed match of a MATCHED transaction;
	// SuggestedMatches the payments a deposit is offered (filled by the
	// reads).
	Match            *TxnMatch
	SuggestedMatches []MatchSuggestion
	ImportedAt       time.Time
	UpdatedAt        time.Time
	// ArchivedAt is when the transaction was archived (see Archive); nil
	// while it is live.
	ArchivedAt *time.Time
	Version    int
}

// TxnCategory is what a transaction is categorized as, as stored: one
// entry for a single categorization, several for a split.
type TxnCategory struct {
	Split   bool               `json:"split"`
	Entries []TxnCategoryEntry `json:"entries"`
	// Projected is the projected_income_category the categorization gives.
	Projected ProjectedIncomeCategory `json:"projected"`
}

// ProjectedIncome is the transaction's projected_income_category: its
// categorization's, or by direction while uncategorized.
func (t BankTransaction) ProjectedIncome() ProjectedIncomeCategory {
	if t.Category != nil && t.Category.Projected != "" {
		return t.Category.Projected
	}
	return ProjectIncome(t.Direction, nil)
}

// TxnCategoryEntry is one category of a categorization: a ledger account
// or an exclusion, with the amount it takes.
type TxnCategoryEntry struct {
	Amount        money.Cents `json:"amount"`
	AccountID     *uuid.UUID  `json:"account_id,omitempty"`
	StableName    *string     `json:"stable_name,omitempty"`
	ExclusionType *string     `json:"exclusion_type,omitempty"`
	DisplayName   string      `json:"display_name"`
	TaxCode       *string     `json:"tax_code,omitempty"`
	Tags          []tags.Tag  `json:"tags"`
}

// Classification is the category e names: its exclusion, else its
// account (the zero Classification when it names neither).
func (e TxnCategoryEntry) Classification() Classification {
	if e.ExclusionType != nil {
		return ExclusionClassification(ExclusionType(*e.ExclusionType))
	}
	if e.AccountID != nil {
		return AccountIDClassification(*e.AccountID)
	}
	return Classification{}
}

// NewTxnCategory is the stored form of the resolved categorization rc of
// t, its tags stamped at now.
func NewTxnCategory(t BankTransaction, rc ResolvedCategorization, now time.Time) *TxnCategory {
	out := &TxnCategory{Split: rc.IsSplit(), Projected: ProjectIncome(t.Direction, &rc)}
	for i, e := range rc.Entries() {
		entry := TxnCategoryEntry{Amount: e.Amount, Tags: []tags.Tag{}}
		if e.Tax != nil {
			code := e.Tax.Code
			entry.TaxCode = &code
		}
		if e.Category.IsExclusion() {
			x := string(e.Category.Exclusion)
			entry.ExclusionType, entry.DisplayName = &x, e.Category.Exclusion.DisplayName()
		} else {
			a := rc.Accounts[i]
			id := a.ID
			entry.AccountID, entry.DisplayName = &id, a.Name
			if a.StableName != "" {
				s := a.StableName
				entry.StableName = &s
			}
		}
		for _, kv := range e.Tags {
			entry.Tags = append(entry.Tags, tags.NewTag(t.BusinessID, t.ID, kv, now))
		}
		out.Entries = append(out.Entries, entry)
	}
	return out
}

// Request is the request that gives a transaction the categorization c
// again (to re-post it after its amount, direction or date changed).
func (c TxnCategory) Request() CategorizationRequest {
	class := func(e TxnCategoryEntry) Classification {
		if e.ExclusionType != nil {
			return Classification{Type: ByExclusion, Exclusion: ExclusionType(*e.ExclusionType)}
		}
		return Classification{Type: ByAccountID, AccountID: *e.AccountID}
	}
	code := func(e TxnCategoryEntry) string {
		if e.TaxCode != nil {
			return *e.TaxCode
		}
		return ""
	}
	if !c.Split {
		return CategorizationRequest{Type: TypeCategory, Category: class(c.Entries[0]), TaxCode: code(c.Entries[0])}
	}
	out := CategorizationRequest{Type: TypeSplit}
	for _, e := range c.Entries {
		kvs := make([]tags.KeyValue, len(e.Tags))
		for i, tg := range e.Tags {
			kvs[i] = tags.KeyValue{Key: tg.Key, Value: tg.Value}
		}
		out.Entries = append(out.Entries, SplitEntryRequest{Category: class(e), Amount: e.Amount, TaxCode: code(e), Tags: kvs})
	}
	return out
}

// BankAccountID is the bank account id rules match on: the custom or the
// external account (uuid.Nil when neither).
func (t BankTransaction) BankAccountID() uuid.UUID {
	switch {
	case t.CustomAccountID != nil:
		return *t.CustomAccountID
	case t.ExternalAccountID != nil:
		return *t.ExternalAccountID
	}
	return uuid.Nil
}

// EntryTags are the entry tags of t's journal entry: the transaction's
// tags, so every line of the entry carries them (a split entry's own tags
// are its line's).
func (t BankTransaction) EntryTags() []tags.KeyValue {
	out := make([]tags.KeyValue, len(t.Tags))
	for i, tg := range t.Tags {
		out[i] = tags.KeyValue{Key: tg.Key, Value: tg.Value, DimensionDisplayName: tg.DimensionDisplayName, ValueDisplayName: tg.ValueDisplayName}
	}
	return out
}

// ApplyRecord copies the record patch's descriptive properties onto t
// (those p sets; a null clears).
func (t *BankTransaction) ApplyRecord(p *RecordPatch) {
	if p.Description.Set {
		d := p.Description.Value
		t.Description = &d
	}
	setNullable(&t.CounterpartyName, p.MerchantName)
	setNullable(&t.Memo, p.Memo)
	setNullable(&t.ReferenceNumber, p.ReferenceNumber)
	setNullable(&t.CustomerExternalID, p.CustomerExternalID)
	setNullable(&t.VendorExternalID, p.VendorExternalID)
	setNullableID(&t.CustomerID, p.CustomerID)
	setNullableID(&t.VendorID, p.VendorID)
	if p.Metadata.Set {
		t.Metadata = nil
		if !p.Metadata.Null {
			t.Metadata = p.Metadata.Value
		}
	}
}

func setNullableID(dst **uuid.UUID, v Nullable[uuid.UUID]) {
	if !v.Set {
		return
	}
	if v.Null {
		*dst = nil
		return
	}
	id := v.Value
	*dst = &id
}

func setNullable(dst **string, v Nullable[string]) {
	if !v.Set {
		return
	}
	if v.Null {
		*dst = nil
		return
	}
	s := v.Value
	*dst = &s
}
