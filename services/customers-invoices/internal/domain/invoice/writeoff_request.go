package invoice

import (
	"encoding/json"
	"time"

	"github.com/acctsuite/acct/pkg/jsonraw"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"
)

// WriteOffInput is a checked POST /invoices/{id}/write-off body; the
// amounts' rules are Invoice.CanWriteOff's.
type WriteOffInput struct {
	ExternalID      *string
	Amount          money.Cents
	Mode            WriteOffMode
	Destination     AccountRef
	WriteOffAt      *time.Time
	Memo            *string
	ReferenceNumber *string
	Tags            []tags.KeyValue
}

// WriteOffBody is POST /invoices/{id}/write-off's body as the transport
// decodes it (strictly); Input checks it.
type WriteOffBody struct {
	ExternalID               *string           `json:"external_id"`
	Amount                   json.RawMessage   `json:"amount"`
	WriteOffMode             *string           `json:"write_off_mode"`
	WriteOffAt               *time.Time        `json:"write_off_at"`
	DestinationLedgerAccount *accountIdentJSON `json:"destination_ledger_account"`
	Memo                     *string           `json:"memo"`
	ReferenceNumber          *string           `json:"reference_number"`
	Tags                     []tags.KeyValue   `json:"tags"`
}

// Input checks a write-off body: amount is required, write_off_mode
// EXPENSE (the default) or REVENUE_REVERSAL, the destination a well
// formed account identifier, texts within their limits and without NUL,
// tags pkg/tags' rules. Every violation is named in one 400
// InvalidInvoice (tags: pkg/tags' error).
func (b WriteOffBody) Input() (WriteOffInput, error) {
	bad := map[string]string{}
	out := WriteOffInput{
		ExternalID: b.ExternalID, Amount: cents("amount", b.Amount, true, bad), WriteOffAt: b.WriteOffAt,
		Memo: b.Memo, ReferenceNumber: b.ReferenceNumber, Mode: ModeExpense,
		Destination: b.DestinationLedgerAccount.ref("destination_ledger_account", bad),
	}
	if b.WriteOffMode != nil {
		m, ok := ParseWriteOffMode(*b.WriteOffMode)
		if !ok {
			bad["write_off_mode"] = "must be EXPENSE or REVENUE_REVERSAL"
		}
		out.Mode = m
	}
	checkTexts(map[string]*string{"external_id": b.ExternalID, "memo": b.Memo, "reference_number": b.ReferenceNumber}, bad)
	kvs, err := tags.NormalizeList("tags", b.Tags)
	if err != nil {
		return WriteOffInput{}, err
	}
	out.Tags = kvs
	if len(bad) > 0 {
		return WriteOffInput{}, invalidRequest(bad)
	}
	return out, nil
}

// ParseWriteOff reads a write-off body: decoded strictly, then checked
// (WriteOffBody.Input).
func ParseWriteOff(raw []byte) (WriteOffInput, error) {
	var b WriteOffBody
	if err := jsonraw.Decode(raw, &b); err != nil {
		return WriteOffInput{}, err
	}
	return b.Input()
}
