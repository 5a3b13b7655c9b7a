// Package tagging is the bills-tags service's client of the services that
// own what POST /tags tags outside this service: bank transactions (the
// transactions service) and invoices and invoice payments (the
// customers-invoices service). Each call goes to the owner's own tagging
// endpoint through pkg/internalclient, with the caller's credentials (the
// owner verifies them again and answers for that caller only) and a
// timeout; the owner's refusals come back in POST /tags's words (its ids
// field and its unknown id's meta key named entity_ids and entity_id), and
// no answer is a 503 naming the owner.
package tagging

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/internalclient"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/bills-tags/internal/app"
)

// The error_enum of the 503 when an owner did not answer (down, timed
// out, or failed).
const (
	EnumTransactionsUnavailable      = "TransactionsUnavailable"
	EnumCustomersInvoicesUnavailable = "CustomersInvoicesUnavailable"
)

// Transactions tags bank transactions in the transactions service.
type Transactions struct{ c *internalclient.Client }

// NewTransactions is the transactions service at baseURL, whose calls give
// up after timeout.
func NewTransactions(baseURL string, timeout time.Duration) Transactions {
	return Transactions{internalclient.New("transactions", baseURL, timeout, EnumTransactionsUnavailable)}
}

var _ app.BankTransactionTagger = Transactions{}

// TagBankTransactions is POST /v1/businesses/{id}/bank-transactions/tags
// of the transactions service for caller: the tags it added, or its
// refusal as our error object (a 4xx keeps its type, enum and
// description, with `transaction_ids` named `entity_ids`); no answer, a
// timeout or a 5xx is 503 TransactionsUnavailable.
func (t Transactions) TagBankTransactions(ctx context.Context, caller app.Caller, businessID uuid.UUID, ids []uuid.UUID, kvs []tags.KeyValue) ([]tags.Tag, error) {
	return tag(ctx, t.c, caller, businessID, "/bank-transactions/tags", "transaction_ids", ids, kvs, nil)
}

// Invoicing tags invoices and invoice payments in the customers-invoices
// service.
type Invoicing struct{ c *internalclient.Client }

// NewInvoicing is the customers-invoices service at baseURL, whose calls
// give up after timeout.
func NewInvoicing(baseURL string, timeout time.Duration) Invoicing {
	return Invoicing{internalclient.New("customers-invoices", baseURL, timeout, EnumCustomersInvoicesUnavailable)}
}

var _ app.InvoiceTagger = Invoicing{}

// invoiceMetaKeys are the meta keys of the customers-invoices service's
// refusals naming the unknown id.
var invoiceMetaKeys = map[string]string{"invoice_id": "entity_id", "payment_id": "entity_id"}

// TagInvoices is POST /v1/businesses/{id}/invoices/tags of the
// customers-invoices service for caller: the tags it added, or its
// refusal as our error object (a 4xx keeps its type, enum and
// description, with `invoice_ids` named `entity_ids`); no answer, a
// timeout or a 5xx is 503 CustomersInvoicesUnavailable.
func (i Invoicing) TagInvoices(ctx context.Context, caller app.Caller, businessID uuid.UUID, ids []uuid.UUID, kvs []tags.KeyValue) ([]tags.Tag, error) {
	return tag(ctx, i.c, caller, businessID, "/invoices/tags", "invoice_ids", ids, kvs, invoiceMetaKeys)
}

// TagInvoicePayments is TagInvoices for customer payments: POST
// /v1/businesses/{id}/invoices/payments/tags, `payment_ids` named
// `entity_ids`.
func (i Invoicing) TagInvoicePayments(ctx context.Context, caller app.Caller, businessID uuid.UUID, ids []uuid.UUID, kvs []tags.KeyValue) ([]tags.Tag, error) {
	return tag(ctx, i.c, caller, businessID, "/invoices/payments/tags", "payment_ids", ids, kvs, invoiceMetaKeys)
}

// tagsAnswer is an owner's answer to a tagging: the SDK's
// {data: {type, tags}} (the owners send the tags at the top level too).
type tagsAnswer struct {
	Data struct {
		Tags *[]tags.Tag `json:"tags"`
	} `json:"data"`
}

// tag posts {key_values, <idsField>: ids} to the owner's route under the
// business for caller and answers the tags it added.
func tag(ctx context.Context, c *internalclient.Client, caller app.Caller, businessID uuid.UUID, route, idsField string,
	ids []uuid.UUID, kvs []tags.KeyValue, metaKeys map[string]string) ([]tags.Tag, error) {
	call := internalclient.Call{
		Path:   "/v1/businesses/" + businessID.String() + route,
		Body:   map[string]any{"key_values": kvs, idsField: ids},
		Action: "apply the tags",
		Rename: internalclient.Rename{Fields: map[string]string{idsField: "entity_ids"}, MetaKeys: metaKeys},
	}
	var ans tagsAnswer
	if err := c.Do(ctx, internalclient.Caller{Authorization: caller.Authorization, RequestID: caller.RequestID}, call, &ans); err != nil {
		return nil, err
	}
	if ans.Data.Tags == nil {
		return nil, c.Unavailable(call.Action, errors.New("answer without data.tags"))
	}
	return *ans.Data.Tags, nil
}
