package banking

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/acctsuite/acct/pkg/jsonraw"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"
)

// MaxImportItems bounds one import call (bulk or custom account).
const MaxImportItems = 1000

// ImportItem is a checked item of a bulk import (POST
// /bank-transactions/bulk): a transaction from the API or a provider,
// idempotent on (Source, SourceTransactionID).
type ImportItem struct {
	Source              Source
	SourceTransactionID string
	SourceAccountID     string
	AccountName         *string
	TransactionType     *string
	Date                time.Time
	Direction           Direction
	Amount              money.Cents
	CounterpartyName    *string
	Description         *string
	ReferenceNumber     *string
	Memo                *string
	Metadata            json.RawMessage // compact JSON object, nil when absent
	Tags                []tags.KeyValue
}

// CustomTransactionItem is a checked item of POST
// /custom-accounts/{id}/transactions (source CUSTOM).
type CustomTransactionItem struct {
	// ExternalID makes the item idempotent within its custom account; nil
	// when the caller sent none (the new transaction's id then stands as
	// its source_transaction_id).
	ExternalID       *string
	TransactionType  *string
	Date             time.Time
	Direction        Direction
	Amount           money.Cents
	CounterpartyName *string
	Description      *string
	ReferenceNumber  *string
	Memo             *string
	Metadata         json.RawMessage
	Tags             []tags.KeyValue
}

// wireTransaction holds every member either item kind may carry, raw, so
// each is checked for its own JSON type.
type wireTransaction struct {
	Source              json.RawMessage `json:"source"`
	SourceTransactionID json.RawMessage `json:"source_transaction_id"`
	SourceAccountID     json.RawMessage `json:"source_account_id"`
	AccountName         json.RawMessage `json:"account_name"`
	ExternalID          json.RawMessage `json:"external_id"`
	TransactionType     json.RawMessage `json:"transaction_type"`
	Date                json.RawMessage `json:"date"`
	Direction           json.RawMessage `json:"direction"`
	Amount              json.RawMessage `json:"amount"`
	CounterpartyName    json.RawMessage `json:"counterparty_name"`
	Description         json.RawMessage `json:"description"`
	ReferenceNumber     json.RawMessage `json:"reference_number"`
	Memo                json.RawMessage `json:"memo"`
	Metadata            json.RawMessage `json:"metadata"`
	Tags                json.RawMessage `json:"tags"`
}

// decodeBatch reads `{transactions: [...]}` into raw items, checking the
// count.
func decodeBatch(body []byte) ([]json.RawMessage, error) {
	var w struct {
		Transactions json.RawMessage `json:"transactions"`
	}
	if !jsonraw.IsObject(body) || json.Unmarshal(body, &w) != nil {
		return nil, fieldError(apperr.InvalidPayload, "body", EnumInvalidTransaction, "must be a JSON object {transactions: [...]}")
	}
	raw := bytes.TrimSpace(w.Transactions)
	var items []json.RawMessage
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		return nil, fieldError(apperr.InvalidPayload, "transactions", EnumInvalidTransaction, "is required: an array of transactions")
	}
	switch {
	case len(items) == 0:
		return nil, fieldError(apperr.InvalidPayload, "transactions", EnumNoTransactions, "must hold at least one transaction")
	case len(items) > MaxImportItems:
		return nil, fieldError(apperr.InvalidPayload, "transactions", EnumTooManyTransactions,
			fmt.Sprintf("at most %d transactions per call, got %d", MaxImportItems, len(items)))
	}
	return items, nil
}

// decodeItem reads one item's members; false when it is not an object.
func decodeItem(raw json.RawMessage, f string, v *apperr.Violations) (wireTransaction, bool) {
	var w wireTransaction
	if !jsonraw.IsObject(raw) || json.Unmarshal(raw, &w) != nil {
		v.Add(f, EnumInvalidTransaction, "must be a transaction object")
		return w, false
	}
	return w, true
}

// common are the members both item kinds share.
type common struct {
	date                                             time.Time
	direction                                        Direction
	amount                                           money.Cents
	counterparty, description, referenceNumber, memo *string
	metadata                                         json.RawMessage
	tags                                             []tags.KeyValue
	transactionType                                  *string
}

func decodeCommon(w wireTransaction, f string, v *apperr.Violations) common {
	return common{
		date:            decodeDate(w.Date, f+".date", v),
		direction:       decodeDirection(w.Direction, f+".direction", v),
		amount:          decodeAmount(w.Amount, f+".amount", v),
		counterparty:    decodeText(w.CounterpartyName, f+".counterparty_name", textRule{max: MaxCounterpartyLength}, v),
		description:     decodeText(w.Description, f+".description", textRule{max: MaxDescriptionLength, multiline: true}, v),
		referenceNumber: decodeText(w.ReferenceNumber, f+".reference_number", textRule{max: MaxReferenceNumberLength}, v),
		memo:            decodeText(w.Memo, f+".memo", textRule{max: MaxMemoLength, multiline: true}, v),
		metadata:        decodeMetadata(w.Metadata, f+".metadata", v),
		tags:            decodeTagList(w.Tags, f+".tags", v),
		transactionType: decodeText(w.TransactionType, f+".transaction_type", textRule{max: MaxTransactionTypeLength}, v),
	}
}

func decodeTagList(raw json.RawMessage, f string, v *apperr.Violations) []tags.KeyValue {
	kvs, _ := decodeTags(raw, f, v)
	return kvs
}

// ParseImportBatch reads and checks a bulk import body `{transactions:
// [...]}`: 1 to MaxImportItems items, each with `source` (API or
// PROVIDER_1..3), `source_transaction_id`, `source_account_id`, `date`
// (YYYY-MM-DD or RFC 3339), `direction` (CREDIT/DEBIT or a synonym) and a
// positive `amount` in cents (number or string of digits), and optional
// `account_name`, `transaction_type`, `counterparty_name`, `description`, `reference_number`,
// `memo`, `metadata` (a JSON object of at most 1 KB) and `tags`. Text is
// trimmed, blank optional text is absent, and lengths are bounded. The
// same (source, source_transaction_id) twice in one call is refused
// (DuplicateExternalId). All or nothing: every violation of every item is
// named in one 400 InvalidPayload (`transactions[3].amount`...).
func ParseImportBatch(body []byte) ([]ImportItem, error) {
	raws, err := decodeBatch(body)
	if err != nil {
		return nil, err
	}
	v := apperr.NewViolations(apperr.InvalidPayload)
	out := make([]ImportItem, 0, len(raws))
	type key struct {
		source Source
		id     string
	}
	seen := make(map[key]int, len(raws))
	for i, raw := range raws {
		f := fmt.Sprintf("transactions[%d]", i)
		w, ok := decodeItem(raw, f, v)
		if !ok {
			continue
		}
		it := ImportItem{}
		if s, ok := jsonraw.String(w.Source); !ok {
			v.Add(f+".source", EnumInvalidTransaction, "is required: API, PROVIDER_1, PROVIDER_2 or PROVIDER_3")
		} else if it.Source = Source(s); !it.Source.Importable() {
			v.Add(f+".source", EnumInvalidTransaction, "must be API, PROVIDER_1, PROVIDER_2 or PROVIDER_3")
		}
		idRule := textRule{max: MaxExternalIDLength, required: true}
		if id := decodeText(w.SourceTransactionID, f+".source_transaction_id", idRule, v); id != nil {
			it.SourceTransactionID = *id
		}
		if id := decodeText(w.SourceAccountID, f+".source_account_id", idRule, v); id != nil {
			it.SourceAccountID = *id
		}
		it.AccountName = decodeText(w.AccountName, f+".account_name", textRule{max: MaxAccountNameLength}, v)
		c := decodeCommon(w, f, v)
		it.Date, it.Direction, it.Amount = c.date, c.direction, c.amount
		it.CounterpartyName, it.Description, it.ReferenceNumber, it.Memo = c.counterparty, c.description, c.referenceNumber, c.memo
		it.Metadata, it.Tags, it.TransactionType = c.metadata, c.tags, c.transactionType
		if it.SourceTransactionID != "" && it.Source.Importable() {
			k := key{it.Source, it.SourceTransactionID}
			if first, dup := seen[k]; dup {
				v.Add(f+".source_transaction_id", EnumDuplicateExternalID,
					fmt.Sprintf("duplicates transactions[%d] (same source and source_transaction_id)", first))
			} else {
				seen[k] = i
			}
		}
		out = append(out, it)
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// ParseCustomTransactions reads and checks the body of POST
// /custom-accounts/{id}/transactions, `{transactions: [...]}`: like
// ParseImportBatch, without source, source ids and account name (the
// custom account supplies them), with an optional `external_id` that
// must be unique within the call (DuplicateExternalId).
func ParseCustomTransactions(body []byte) ([]CustomTransactionItem, error) {
	raws, err := decodeBatch(body)
	if err != nil {
		return nil, err
	}
	v := apperr.NewViolations(apperr.InvalidPayload)
	out := make([]CustomTransactionItem, 0, len(raws))
	seen := make(map[string]int, len(raws))
	for i, raw := range raws {
		f := fmt.Sprintf("transactions[%d]", i)
		w, ok := decodeItem(raw, f, v)
		if !ok {
			continue
		}
		it := CustomTransactionItem{
			ExternalID: decodeText(w.ExternalID, f+".external_id", textRule{max: MaxExternalIDLength}, v),
		}
		c := decodeCommon(w, f, v)
		it.Date, it.Direction, it.Amount = c.date, c.direction, c.amount
		it.CounterpartyName, it.Description, it.ReferenceNumber, it.Memo = c.counterparty, c.description, c.referenceNumber, c.memo
		it.Metadata, it.Tags, it.TransactionType = c.metadata, c.tags, c.transactionType
		if it.ExternalID != nil {
			if first, dup := seen[*it.ExternalID]; dup {
				v.Add(f+".external_id", EnumDuplicateExternalID, fmt.Sprintf("duplicates transactions[%d]", first))
			} else {
				seen[*it.ExternalID] = i
			}
		}
		out = append(out, it)
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	return out, nil
}
