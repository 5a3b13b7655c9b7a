package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/clock"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/bill"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/tagreg"
)

// TagRegistryStore is the registry's persistence (scoped by business, in
// the unit of work ctx carries, else on the pool).
type TagRegistryStore interface {
	FindDimensions(ctx context.Context, businessID uuid.UUID, includeDeleted bool) ([]tagreg.Dimension, error)
	FindDimension(ctx context.Context, businessID, id uuid.UUID, forUpdate bool) (tagreg.Dimension, bool, error)
	InsertDimension(ctx context.Context, d tagreg.Dimension) (bool, error)
	UpdateDimension(ctx context.Context, d tagreg.Dimension) error
	InsertValues(ctx context.Context, businessID uuid.UUID, vs []tagreg.Value) error
	UpdateValue(ctx context.Context, businessID uuid.UUID, v tagreg.Value) error
	LearnTags(ctx context.Context, entries []tagreg.Dimension) error
}

// Caller is who asked, as verified at the edge: its bearer credentials
// travel with an internal call so that the owning service checks them
// again and answers for that caller only.
type Caller struct {
	Authorization string
	RequestID     string
}

// BankTransactionTagger puts tags on bank transactions in the service that
// owns them (the transactions service), for caller; the error is the
// owner's answer as an API error.
type BankTransactionTagger interface {
	TagBankTransactions(ctx context.Context, caller Caller, businessID uuid.UUID, ids []uuid.UUID, kvs []tags.KeyValue) ([]tags.Tag, error)
}

// InvoiceTagger puts tags on invoices and invoice payments in the
// service that owns them (customers-invoices), for caller; the error is
// the owner's answer as an API error.
type InvoiceTagger interface {
	TagInvoices(ctx context.Context, caller Caller, businessID uuid.UUID, ids []uuid.UUID, kvs []tags.KeyValue) ([]tags.Tag, error)
	TagInvoicePayments(ctx context.Context, caller Caller, businessID uuid.UUID, ids []uuid.UUID, kvs []tags.KeyValue) ([]tags.Tag, error)
}

// BillTagger puts tags on the business's bills in the unit of work ctx
// carries.
type BillTagger interface {
	TagBills(ctx context.Context, businessID uuid.UUID, ids []uuid.UUID, kvs []tags.KeyValue) ([]tags.Tag, error)
}

// Tags holds the tag registry and generic tagging use cases.
type Tags struct {
	uow      UnitOfWork
	store    TagRegistryStore
	bills    BillTagger
	payments PaymentTagger // nil: BILL_PAYMENT is unsupported
	bank     BankTransactionTagger
	invoices InvoiceTagger
	log      *slog.Logger
	clk      clock.Clock
}

// PaymentTagger tags bill payments (Payments.TagPayments, its own
// transaction).
type PaymentTagger interface {
	TagPayments(ctx context.Context, businessID uuid.UUID, ids []uuid.UUID, kvs []tags.KeyValue) ([]tags.Tag, error)
}

// UsePayments lets POST /tags tag bill payments through p.
func (a *Tags) UsePayments(p PaymentTagger) { a.payments = p }

// NewTags assembles the registry use cases; bills tags bills in process,
// bank reaches the transactions service, invoices the customers-invoices
// service.
func NewTags(uow UnitOfWork, store TagRegistryStore, bills BillTagger, bank BankTransactionTagger, invoices InvoiceTagger, logger *slog.Logger) *Tags {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Tags{uow: uow, store: store, bills: bills, bank: bank, invoices: invoices, log: logger, clk: clock.System}
}

// Dimensions is GET /tags/dimensions.
func (a *Tags) Dimensions(ctx context.Context, businessID uuid.UUID, includeDeleted bool) ([]tagreg.Dimension, error) {
	return a.store.FindDimensions(ctx, businessID, includeDeleted)
}

// DimensionByKey is GET /tags/dimensions/key/{key}: the id is derived
// from the key (a deleted dimension is found too, with its deleted_at).
func (a *Tags) DimensionByKey(ctx context.Context, businessID uuid.UUID, key string) (tagreg.Dimension, error) {
	k, err := tags.NormalizeKey(key)
	if err != nil {
		return tagreg.Dimension{}, apperr.Field("dimensionKey", err.Error()).WithEnum(tagreg.EnumInvalidDimension)
	}
	return a.dimension(ctx, businessID, tags.DimensionID(businessID, k), false)
}

func (a *Tags) dimension(ctx context.Context, businessID, id uuid.UUID, forUpdate bool) (tagreg.Dimension, error) {
	d, ok, err := a.store.FindDimension(ctx, businessID, id, forUpdate)
	if err != nil {
		return tagreg.Dimension{}, err
	}
	if !ok {
		return tagreg.Dimension{}, tagreg.ErrDimensionNotFound()
	}
	return d, nil
}

// ErrDimensionExists is the 409 of a create naming an existing key with
// another strictness or display name.
func ErrDimensionExists(d tagreg.Dimension) *apperr.Error {
	return apperr.New(apperr.Conflict, "the business has a dimension with this key: change it with PATCH /tags/dimensions/{dimensionId}").
		WithEnum(tagreg.EnumDimensionExists).WithMeta("dimension_id", d.ID.String())
}

// CreateDimension is POST /tags/dimensions: a new dimension (created
// true). When the business has the key already (defined, or learned from
// a tag in use), the request is a repeat if it asks for the same
// strictness and (when given) display name: the values it lacks are
// added and it is answered (created false); otherwise 409
// TagDimensionExists. A deleted dimension is restored by a repeat.
func (a *Tags) CreateDimension(ctx context.Context, businessID uuid.UUID, in tagreg.CreateInput) (tagreg.Dimension, bool, error) {
	var (
		out     tagreg.Dimension
		created bool
	)
	err := a.uow.Do(ctx, func(ctx context.Context) error {
		now := a.clk.Now()
		d := tagreg.NewDimension(businessID, in.Key, in.DisplayName, in.Strictness, now)
		d, _ = d.AddValues(in.Values, now)
		inserted, err := a.store.InsertDimension(ctx, d)
		if err != nil {
			return err
		}
		if inserted {
			out, created = d, true
			return nil
		}
		existing, err := a.dimension(ctx, businessID, d.ID, true)
		if err != nil {
			return err
		}
		if existing.Strictness != in.Strictness || (in.DisplayName != nil && *in.DisplayName != existing.DisplayName) {
			return ErrDimensionExists(existing)
		}
		next, added := existing.AddValues(in.Values, now)
		if len(added) > 0 || next.DeletedAt != nil {
			next.DeletedAt, next.UpdatedAt = nil, now
			if err := a.store.InsertValues(ctx, businessID, added); err != nil {
				return err
			}
			if err := a.store.UpdateDimension(ctx, next); err != nil {
				return err
			}
		}
		out = next
		return nil
	})
	return out, created, err
}

// PatchDimension is PATCH /tags/dimensions/{id}: display name (null: the
// key again), strictness, user_visible.
func (a *Tags) PatchDimension(ctx context.Context, businessID, id uuid.UUID, p tagreg.Patch) (tagreg.Dimension, error) {
	var out tagreg.Dimension
	err := a.uow.Do(ctx, func(ctx context.Context) error {
		d, err := a.dimension(ctx, businessID, id, true)
		if err != nil {
			return err
		}
		next := d
		switch {
		case p.DisplayName != nil:
			next.DisplayName = *p.DisplayName
		case p.ClearDisplayName:
			next.DisplayName = d.Key
		}
		if p.Strictness != nil {
			next.Strictness = *p.Strictness
		}
		if p.UserVisible != nil {
			next.UserVisible = *p.UserVisible
		}
		if next.DisplayName != d.DisplayName || next.Strictness != d.Strictness || next.UserVisible != d.UserVisible {
			next.UpdatedAt = a.clk.Now()
			if err := a.store.UpdateDimension(ctx, next); err != nil {
				return err
			}
		}
		out = next
		return nil
	})
	return out, err
}

// AddValue is POST /tags/dimensions/{id}/values: the new value (created
// true), or the existing one (created false), restored if it was archived
// and renamed if a display name is given.
func (a *Tags) AddValue(ctx context.Context, businessID, dimensionID uuid.UUID, in tagreg.ValueInput) (tagreg.Dimension, tagreg.Value, bool, error) {
	var (
		dim     tagreg.Dimension
		out     tagreg.Value
		created bool
	)
	err := a.uow.Do(ctx, func(ctx context.Context) error {
		d, err := a.dimension(ctx, businessID, dimensionID, true)
		if err != nil {
			return err
		}
		now := a.clk.Now()
		v := d.NewValue(in, now)
		if existing, ok := d.Value(v.ID); ok {
			next := existing
			next.ArchivedAt = nil
			if in.DisplayName != nil {
				next.DisplayName = *in.DisplayName
			}
			if next.ArchivedAt != existing.ArchivedAt || next.DisplayName != existing.DisplayName {
				next.UpdatedAt = now
				if err := a.store.UpdateValue(ctx, businessID, next); err != nil {
					return err
				}
			}
			dim, out = d, next
			return nil
		}
		if err := a.store.InsertValues(ctx, businessID, []tagreg.Value{v}); err != nil {
			return err
		}
		d.UpdatedAt = now
		if err := a.store.UpdateDimension(ctx, d); err != nil {
			return err
		}
		dim, out, created = d, v, true
		return nil
	})
	return dim, out, created, err
}

// ArchiveValue is POST /tags/dimensions/{id}/values/{valueId}/archive:
// the value stays on what it tags but is offered no more (archived_at
// set; archiving again changes nothing).
func (a *Tags) ArchiveValue(ctx context.Context, businessID, dimensionID, valueID uuid.UUID) (tagreg.Dimension, tagreg.Value, error) {
	var (
		dim tagreg.Dimension
		out tagreg.Value
	)
	err := a.uow.Do(ctx, func(ctx context.Context) error {
		d, err := a.dimension(ctx, businessID, dimensionID, true)
		if err != nil {
			return err
		}
		v, ok := d.Value(valueID)
		if !ok {
			return tagreg.ErrValueNotFound()
		}
		if v.ArchivedAt == nil {
			now := a.clk.Now()
			v.ArchivedAt, v.UpdatedAt = &now, now
			if err := a.store.UpdateValue(ctx, businessID, v); err != nil {
				return err
			}
		}
		dim, out = d, v
		return nil
	})
	return dim, out, err
}

// Learn records the tags seen (in events or tagging requests) that the
// registry lacks, in the unit of work ctx carries (a consumer's inbox
// transaction, a tagging request's), else on its own.
func (a *Tags) Learn(ctx context.Context, ls []tagreg.Learned) error {
	if len(ls) == 0 {
		return nil
	}
	return a.store.LearnTags(ctx, tagreg.Entries(ls, a.clk.Now()))
}

// ErrUnsupportedEntityType is the 400 of an entity type this service has
// no way to tag (none since every owner has a tagging endpoint; kept for
// a service assembled without the bill payments' tagger).
func ErrUnsupportedEntityType(t tagreg.EntityType) *apperr.Error {
	return apperr.PayloadField("entity_type", fmt.Sprintf("%s cannot be tagged through POST /tags yet", t)).
		WithEnum(tagreg.EnumUnsupportedEntityType)
}

// Apply is POST /tags: the tags go to the service that owns the entities
// (bills and bill payments here, in one transaction; bank transactions
// through the transactions service, invoices and invoice payments through
// the customers-invoices service, both with the caller's credentials) and
// the answer, the
// tags added, comes only once the owner has applied them. The registry
// learns the tags at once (the owner's events would teach it too).
func (a *Tags) Apply(ctx context.Context, caller Caller, businessID uuid.UUID, r tagreg.TagRequest) ([]tags.Tag, error) {
	ids := slices.Clone(r.EntityIDs)
	slices.SortFunc(ids, func(x, y uuid.UUID) int { return slices.Compare(x[:], y[:]) })
	learned := make([]tagreg.Learned, len(r.KeyValues))
	for i, kv := range r.KeyValues {
		learned[i] = tagreg.Learned{BusinessID: businessID, Key: kv.Key, Value: kv.Value,
			DimensionDisplayName: kv.DimensionDisplayName, ValueDisplayName: kv.ValueDisplayName}
	}
	var out []tags.Tag
	switch r.EntityType {
	case tagreg.Bill:
		err := a.uow.Do(ctx, func(ctx context.Context) (err error) {
			if out, err = a.bills.TagBills(ctx, businessID, ids, r.KeyValues); err != nil {
				return err
			}
			return a.Learn(ctx, learned)
		})
		if err != nil {
			return nil, err
		}
	case tagreg.BillPayment:
		if a.payments == nil {
			return nil, ErrUnsupportedEntityType(r.EntityType)
		}
		var err error
		if out, err = a.payments.TagPayments(ctx, businessID, ids, r.KeyValues); err != nil {
			return nil, renameField(err, "transaction_ids", "entity_ids")
		}
		if err := a.Learn(ctx, learned); err != nil {
			a.log.WarnContext(ctx, "learn tags after tagging bill payments", slog.Any("error", err))
		}
	case tagreg.BankTransaction, tagreg.Invoice, tagreg.InvoicePayment:
		remote := map[tagreg.EntityType]func(context.Context, Caller, uuid.UUID, []uuid.UUID, []tags.KeyValue) ([]tags.Tag, error){
			tagreg.BankTransaction: a.bank.TagBankTransactions,
			tagreg.Invoice:         a.invoices.TagInvoices,
			tagreg.InvoicePayment:  a.invoices.TagInvoicePayments,
		}[r.EntityType]
		var err error
		if out, err = remote(ctx, caller, businessID, ids, r.KeyValues); err != nil {
			return nil, err
		}
		// Applied: the registry's copy is best effort now (the owner's
		// events bring the same tags again).
		if err := a.Learn(ctx, learned); err != nil {
			a.log.WarnContext(ctx, "learn tags after tagging through their owner", slog.Any("entity_type", string(r.EntityType)), slog.Any("error", err))
		}
	default:
		return nil, ErrUnsupportedEntityType(r.EntityType)
	}
	if out == nil {
		out = []tags.Tag{}
	}
	return out, nil
}

// TagBills implements BillTagger: every tag of kvs on every bill of ids
// (a bill keeps a tag it has), all or nothing: an id the business does
// not have is 404 BillNotFound. Each changed bill gets a new version and
// its bill.upserted with a posting carrying the new tags (amounts are
// unchanged, so paid and voided bills may be tagged too). It returns the
// tags added.
func (a *Bills) TagBills(ctx context.Context, businessID uuid.UUID, ids []uuid.UUID, kvs []tags.KeyValue) ([]tags.Tag, error) {
	now := a.clk.Now()
	var out []tags.Tag
	for _, id := range ids {
		b, ok, err := a.store.FindBill(ctx, businessID, id, true)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, ErrBillNotFound().WithMeta("field", "entity_ids").WithMeta("entity_id", id.String())
		}
		var added []tags.Tag
		for _, kv := range kvs {
			t := tags.NewTag(businessID, b.ID, kv, now)
			if !slices.ContainsFunc(b.Tags, func(x tags.Tag) bool { return x.ID == t.ID }) {
				added = append(added, t)
			}
		}
		if len(added) == 0 {
			continue
		}
		next := b
		merged := append(slices.Clone(b.Tags), added...)
		next.Tags = bill.TagSet(businessID, b.ID, merged, keyValuesOf(merged), now) // sorted, every tag kept as is
		next.Version, next.UpdatedAt = b.Version+1, now
		if err := a.store.UpdateBill(ctx, next); err != nil {
			return nil, fmt.Errorf("tag bill %s: %w", b.ID, err)
		}
		if err := publish(ctx, a.pub, billEvent(next, next.Posting())); err != nil {
			return nil, err
		}
		out = append(out, added...)
	}
	return out, nil
}

// keyValuesOf is ts as inputs, display names kept.
func keyValuesOf(ts []tags.Tag) []tags.KeyValue {
	out := make([]tags.KeyValue, len(ts))
	for i, t := range ts {
		out[i] = tags.KeyValue{Key: t.Key, Value: t.Value, DimensionDisplayName: t.DimensionDisplayName, ValueDisplayName: t.ValueDisplayName}
	}
	return out
}

// renameField is err with the field from (and its sub-fields, from[0]...)
// named to in its meta.fields and description, for an error a use case
// reports in the words of another endpoint's body.
func renameField(err error, from, to string) error {
	var e *apperr.Error
	if !errors.As(err, &e) {
		return err
	}
	c := *e
	c.Message = strings.ReplaceAll(c.Message, from, to)
	if fields, ok := e.Meta["fields"].(map[string]string); ok {
		renamed := make(map[string]string, len(fields))
		for f, reason := range fields {
			if rest, ok := strings.CutPrefix(f, from); ok {
				f = to + rest
			}
			renamed[f] = reason
		}
		c.Meta = maps.Clone(e.Meta)
		c.Meta["fields"] = renamed
	}
	return &c
}
