package app

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/outbox"
	"github.com/acctsuite/acct/pkg/tags"
)

// MaxTagEntities bounds the invoices (or payments) one tag request
// changes (the transactions service's and POST /tags's 500).
const MaxTagEntities = 500

// ErrPaymentNotFound is the 404 of a payment id the business does not
// have.
func ErrPaymentNotFound() *apperr.Error {
	return apperr.New(apperr.NotFound, "payment not found").WithEnum(EnumPaymentNotFound)
}

// tagRequest checks a tag request's ids (1 to MaxTagEntities, named field)
// and tags (1 to tags.MaxTags, normalised) and returns the ids sorted
// without duplicates (the order rows are locked in).
func tagRequest(field string, ids []uuid.UUID, kvs []tags.KeyValue) ([]uuid.UUID, []tags.KeyValue, error) {
	if len(ids) == 0 || len(ids) > MaxTagEntities {
		return nil, nil, apperr.PayloadField(field, fmt.Sprintf("must hold 1 to %d ids", MaxTagEntities))
	}
	kvs, err := tags.NormalizeList("key_values", kvs)
	if err != nil {
		return nil, nil, err
	}
	if len(kvs) == 0 {
		return nil, nil, apperr.PayloadField("key_values", "must hold at least one tag")
	}
	sorted := slices.Clone(ids)
	slices.SortFunc(sorted, func(x, y uuid.UUID) int { return slices.Compare(x[:], y[:]) })
	return slices.Compact(sorted), kvs, nil
}

// addTags is the tags of kvs on entity that have lacks (pkg/tags'
// deterministic ids: the same key and value on the same entity is the
// same tag).
func addTags(businessID, entity uuid.UUID, has []tags.Tag, kvs []tags.KeyValue, now time.Time) []tags.Tag {
	var added []tags.Tag
	for _, kv := range kvs {
		t := tags.NewTag(businessID, entity, kv, now)
		if !slices.ContainsFunc(has, func(x tags.Tag) bool { return x.ID == t.ID }) &&
			!slices.ContainsFunc(added, func(x tags.Tag) bool { return x.ID == t.ID }) {
			added = append(added, t)
		}
	}
	return added
}

// TagInvoices is POST /invoices/tags: every tag of kvs on every invoice of
// ids (an invoice keeps a tag it has), all or nothing: an id the business
// does not have (never had, or deleted) is 404 InvoiceNotFound naming
// invoice_ids, and nothing changes. Each changed invoice gets a new
// version and its invoice.upserted with the posting of that version, whose
// lines carry the new tags (the amounts are unchanged, so paid and
// written-off invoices may be tagged; a voided invoice is tagged too and
// its posting stays without lines: its entry remains reversed). It
// returns the tags added.
func (a *Invoicing) TagInvoices(ctx context.Context, businessID uuid.UUID, ids []uuid.UUID, kvs []tags.KeyValue) ([]tags.Tag, error) {
	ids, kvs, err := tagRequest("invoice_ids", ids, kvs)
	if err != nil {
		return nil, err
	}
	out := []tags.Tag{}
	err = outbox.RunInTx(ctx, a.db, func(ctx context.Context, tx bun.Tx) error {
		invs := make([]Invoice, 0, len(ids))
		for _, id := range ids {
			inv, ok, err := a.store.FindInvoice(ctx, tx, businessID, id, true)
			if err != nil {
				return fmt.Errorf("lock invoice %s: %w", id, err)
			}
			if !ok {
				return ErrInvoiceNotFound().WithMeta("field", "invoice_ids").WithMeta("invoice_id", id.String())
			}
			invs = append(invs, inv)
		}
		now := a.clock()
		for _, inv := range invs {
			added := addTags(businessID, inv.ID, inv.Tags, kvs, now)
			if len(added) == 0 {
				continue
			}
			next := inv
			next.Tags = append(slices.Clone(inv.Tags), added...)
			next.Version, next.UpdatedAt = inv.Version+1, now
			if err := a.store.UpdateInvoice(ctx, tx, next, false); err != nil {
				return fmt.Errorf("tag invoice %s: %w", inv.ID, err)
			}
			if err := a.pub.InvoiceUpserted(ctx, tx, next, true); err != nil {
				return err
			}
			out = append(out, added...)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// TagPayments is POST /invoices/payments/tags: TagInvoices for customer
// payments (404 PaymentNotFound naming payment_ids; a deleted payment is
// unknown). Each changed payment gets a new version and its
// invoice_payment.upserted with a posting whose lines carry the new tags.
func (a *Invoicing) TagPayments(ctx context.Context, businessID uuid.UUID, ids []uuid.UUID, kvs []tags.KeyValue) ([]tags.Tag, error) {
	ids, kvs, err := tagRequest("payment_ids", ids, kvs)
	if err != nil {
		return nil, err
	}
	out := []tags.Tag{}
	err = outbox.RunInTx(ctx, a.db, func(ctx context.Context, tx bun.Tx) error {
		ps, err := a.store.FindPayments(ctx, tx, businessID, ids, true)
		if err != nil {
			return fmt.Errorf("lock payments: %w", err)
		}
		if len(ps) != len(ids) {
			e := ErrPaymentNotFound().WithMeta("field", "payment_ids")
			for _, id := range ids {
				if !slices.ContainsFunc(ps, func(p Payment) bool { return p.ID == id }) {
					e = e.WithMeta("payment_id", id.String())
					break
				}
			}
			return e
		}
		now := a.clock()
		for _, p := range ps {
			added := addTags(businessID, p.ID, p.Tags, kvs, now)
			if len(added) == 0 {
				continue
			}
			next := p
			next.Tags = append(slices.Clone(p.Tags), added...)
			next.Version, next.UpdatedAt = p.Version+1, now
			if err := a.store.UpdatePayment(ctx, tx, next); err != nil {
				return fmt.Errorf("tag payment %s: %w", p.ID, err)
			}
			if err := a.pub.PaymentUpserted(ctx, tx, next); err != nil {
				return err
			}
			out = append(out, added...)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
