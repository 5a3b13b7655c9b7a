package app

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking/autocat"
)

// EnumRuleExternalIDTaken is the error_enum of a PATCH giving a rule the
// external id of another.
const EnumRuleExternalIDTaken = "CategorizationRuleExternalIdTaken"

// MaxRetroactiveMatches bounds the transactions one rule categorizes when
// created with apply_retroactively (the oldest first): the rest stay as
// they are, and the next import applies the rule to new ones.
const MaxRetroactiveMatches = 5000

// RulePageSpec is the pagination of GET /categorization-rules: by
// precedence (the order the matcher considers rules; the default) or by
// created_at. Rules are few per business: a page is cut from the whole
// list in memory with the same keyset cursor as the SQL listings.
var RulePageSpec = page.Spec{
	Keys: map[string]page.Key{
		"precedence": {Column: "precedence", Kind: page.KindString},
		"created_at": {Column: "created_at", Kind: page.KindTime},
		"updated_at": {Column: "updated_at", Kind: page.KindTime},
	},
	Default: "precedence", DefaultLimit: 100, MaxLimit: 500,
}

// CreateRule is POST /categorization-rules: the draft is checked by the
// domain (400 InvalidCategorizationRule), its category and suggestions
// must name live accounts of the business (400 UnknownAccount) and its
// counterparty_filter a counterparty of the business. An external_id the
// business used answers that rule (created false). With
// apply_retroactively the rule categorizes, in the same transaction, the
// uncategorized transactions it matches (each reversed and posted like an
// import's SERVICE_AUTO categorization). A created_by_suggestion_id marks
// that suggestion accepted.
func (b *Banking) CreateRule(ctx context.Context, businessID uuid.UUID, req autocat.RuleRequest) (autocat.Rule, bool, error) {
	var (
		out     autocat.Rule
		created bool
	)
	err := b.uow.Do(ctx, func(ctx context.Context) error {
		d := req.Draft
		if d.ExternalID != nil {
			if err := b.store.LockKey(ctx, "categorization_rules:"+businessID.String()+":"+*d.ExternalID); err != nil {
				return err
			}
			existing, ok, err := b.store.FindRuleByExternalID(ctx, businessID, *d.ExternalID)
			if err != nil {
				return fmt.Errorf("find rule by external id: %w", err)
			}
			if ok {
				out = existing
				return nil
			}
		}
		if err := b.resolveRuleCounterparty(ctx, businessID, &d); err != nil {
			return err
		}
		r, err := autocat.NewRule(newID(), b.clock(), d)
		if err != nil {
			return err
		}
		if err := b.checkRuleAccounts(ctx, businessID, r); err != nil {
			return err
		}
		if err := b.store.InsertRule(ctx, businessID, r, d); err != nil {
			return err
		}
		if d.CreatedBySuggestionID != nil {
			if _, err := b.store.SetRuleSuggestionStatus(ctx, businessID, *d.CreatedBySuggestionID, SuggestionAccepted, &r.ID, r.CreatedAt); err != nil {
				return fmt.Errorf("accept rule suggestion: %w", err)
			}
		}
		if req.ApplyRetroactively && r.Categorizes() {
			n, err := b.applyRuleRetroactively(ctx, businessID, r)
			if err != nil {
				return err
			}
			b.log.InfoContext(ctx, "rule applied retroactively", "rule_id", r.ID, "transactions", n)
		}
		out, created = r, true
		return nil
	})
	return out, created, err
}

// UpdateRule is PATCH /categorization-rules/{id}: the members given
// replace the rule's conditions and actions (null removes one), checked
// like a new rule. 404 for a rule the business does not have.
func (b *Banking) UpdateRule(ctx context.Context, businessID, id uuid.UUID, p autocat.RulePatch) (autocat.Rule, error) {
	var out autocat.Rule
	err := b.uow.Do(ctx, func(ctx context.Context) error {
		old, draft, ok, err := b.store.FindRule(ctx, businessID, id, LockUpdate)
		if err != nil {
			return fmt.Errorf("find rule %s: %w", id, err)
		}
		if !ok {
			return errRuleNotFound()
		}
		d := p.Apply(draft)
		d.CreatedBySuggestionID = old.CreatedBySuggestionID
		if err := b.resolveRuleCounterparty(ctx, businessID, &d); err != nil {
			return err
		}
		r, err := autocat.NewRule(old.ID, old.CreatedAt, d)
		if err != nil {
			return err
		}
		if err := b.checkRuleAccounts(ctx, businessID, r); err != nil {
			return err
		}
		if r.ExternalID != nil && (old.ExternalID == nil || *old.ExternalID != *r.ExternalID) {
			if err := b.store.LockKey(ctx, "categorization_rules:"+businessID.String()+":"+*r.ExternalID); err != nil {
				return err
			}
			if other, taken, err := b.store.FindRuleByExternalID(ctx, businessID, *r.ExternalID); err != nil {
				return fmt.Errorf("find rule by external id: %w", err)
			} else if taken && other.ID != r.ID {
				return apperr.FieldErrors(apperr.Conflict, map[string]string{"external_id": "is the external id of another rule"}).WithEnum(EnumRuleExternalIDTaken)
			}
		}
		r.UpdatedAt, r.ArchivedAt = b.clock(), old.ArchivedAt
		if err := b.store.UpdateRule(ctx, businessID, r, d); err != nil {
			return err
		}
		out = r
		return nil
	})
	return out, err
}

// ArchiveRule is POST /categorization-rules/{id}/archive: the rule no
// longer applies and is listed only with include_archived; archiving it
// again changes nothing. Transactions it categorized stay as they are.
func (b *Banking) ArchiveRule(ctx context.Context, businessID, id uuid.UUID) (autocat.Rule, error) {
	var out autocat.Rule
	err := b.uow.Do(ctx, func(ctx context.Context) error {
		r, d, ok, err := b.store.FindRule(ctx, businessID, id, LockUpdate)
		if err != nil {
			return fmt.Errorf("find rule %s: %w", id, err)
		}
		if !ok {
			return errRuleNotFound()
		}
		if r.ArchivedAt == nil {
			now := b.clock()
			r.ArchivedAt, r.UpdatedAt = &now, now
			if err := b.store.UpdateRule(ctx, businessID, r, d); err != nil {
				return err
			}
		}
		out = r
		return nil
	})
	return out, err
}

// Rules is GET /categorization-rules: one page of the business's rules
// that pass f, by precedence (the order the matcher considers them) or
// creation time.
func (b *Banking) Rules(ctx context.Context, businessID uuid.UUID, f autocat.RuleFilter, p page.Params) ([]autocat.Rule, page.Meta, error) {
	all, err := b.store.ListAllRules(ctx, businessID, f.IncludeArchived)
	if err != nil {
		return nil, page.Meta{}, fmt.Errorf("list rules of %s: %w", businessID, err)
	}
	rules := slices.DeleteFunc(all, func(r autocat.Rule) bool { return !f.Keep(r) })
	key := func(r autocat.Rule) (any, uuid.UUID) {
		switch p.SortBy {
		case "created_at":
			return r.CreatedAt, r.ID
		case "updated_at":
			return r.UpdatedAt, r.ID
		}
		return autocat.PrecedenceKey(r), r.ID
	}
	compare := func(av any, aid uuid.UUID, bv any, bid uuid.UUID) int {
		var c int
		switch x := av.(type) {
		case time.Time:
			c = x.Compare(bv.(time.Time))
		case string:
			c = cmp.Compare(x, bv.(string))
		}
		if c == 0 {
			c = cmp.Compare(aid.String(), bid.String())
		}
		if p.Order == page.Desc {
			c = -c
		}
		return c
	}
	slices.SortFunc(rules, func(x, y autocat.Rule) int {
		xv, xid := key(x)
		yv, yid := key(y)
		return compare(xv, xid, yv, yid)
	})
	total := len(rules)
	if p.After != nil {
		rules = slices.DeleteFunc(rules, func(r autocat.Rule) bool {
			v, id := key(r)
			after := p.After.Value
			if t, ok := after.(time.Time); ok {
				after = t.UTC()
			}
			return compare(v, id, after, p.After.ID) <= 0
		})
	}
	rules = rules[:min(len(rules), p.Limit+1)]
	out, meta, err := page.Finish(rules, p, key)
	if err != nil {
		return nil, page.Meta{}, err
	}
	if p.ShowTotalCount {
		meta = meta.WithTotal(total)
	}
	return out, meta, nil
}

// RuleCounterparties are the current counterparties the rules name, by
// id (their name may have changed since the rule was made).
func (b *Banking) RuleCounterparties(ctx context.Context, businessID uuid.UUID, rules []autocat.Rule) (map[uuid.UUID]banking.Counterparty, error) {
	out := map[uuid.UUID]banking.Counterparty{}
	for _, r := range rules {
		if r.CounterpartyRef == nil {
			continue
		}
		if _, done := out[r.CounterpartyRef.ID]; done {
			continue
		}
		c, ok, err := b.store.FindRuleCounterparty(ctx, businessID, r.CounterpartyRef.ID)
		if err != nil {
			return nil, err
		}
		if ok {
			out[c.ID] = banking.Counterparty{ID: c.ID, BusinessID: businessID, Key: c.Key, Name: deref(c.Name), ExternalID: c.ExternalID, MCCs: []string{}}
		}
	}
	return out, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func errRuleNotFound() error {
	return apperr.New(apperr.NotFound, "categorization rule not found").WithEnum(EnumRuleNotFound)
}

// resolveRuleCounterparty resolves d's counterparty_filter to the
// business's counterparty (400 when it has none of that id).
func (b *Banking) resolveRuleCounterparty(ctx context.Context, businessID uuid.UUID, d *autocat.RuleDraft) error {
	if d.CounterpartyID == nil {
		d.CounterpartyRef = nil
		return nil
	}
	if d.CounterpartyRef != nil && d.CounterpartyRef.ID == *d.CounterpartyID {
		return nil
	}
	c, ok, err := b.store.FindRuleCounterparty(ctx, businessID, *d.CounterpartyID)
	if err != nil {
		return fmt.Errorf("find counterparty %s: %w", *d.CounterpartyID, err)
	}
	if !ok {
		return apperr.FieldErrors(apperr.InvalidPayload, map[string]string{"counterparty_filter": "names no counterparty of the business"}).
			WithEnum(autocat.EnumInvalidRule)
	}
	d.CounterpartyRef = &c
	return nil
}

// checkRuleAccounts checks that the rule's category and suggestions name
// live accounts of the business.
func (b *Banking) checkRuleAccounts(ctx context.Context, businessID uuid.UUID, r autocat.Rule) error {
	check := func(field string, c banking.Classification) error {
		if c.Type == "" || c.IsExclusion() {
			return nil
		}
		ref := banking.AccountRef{ID: c.AccountID, StableName: c.StableName}
		if _, err := (resolver{b: b, businessID: businessID}).ResolveAccount(ctx, ref); err != nil {
			dref := domain.ByID(ref.ID)
			if ref.StableName != "" {
				dref = domain.ByStableName(ref.StableName)
			}
			return domain.ErrUnknownAccount(field, dref)
		}
		return nil
	}
	if err := check("category", r.Category); err != nil {
		return err
	}
	for i, s := range r.Suggestions {
		if s != nil {
			if err := check(fmt.Sprintf("suggestion_%d", i+1), *s); err != nil {
				return err
			}
		}
	}
	return nil
}

// applyRuleRetroactively categorizes the business's uncategorized
// transactions r matches (at most MaxRetroactiveMatches), each locked,
// reversed and posted in a savepoint of the caller's transaction; one the
// rule no longer fits is left as it is. It returns how many it
// categorized.
func (b *Banking) applyRuleRetroactively(ctx context.Context, businessID uuid.UUID, r autocat.Rule) (int, error) {
	cands, err := b.store.UncategorizedCandidates(ctx, businessID, r, MaxRetroactiveMatches)
	if err != nil {
		return 0, fmt.Errorf("uncategorized candidates: %w", err)
	}
	n := 0
	for _, c := range cands {
		if !r.Matches(c.Candidate) {
			continue
		}
		t, ok, err := b.store.FindBankTransaction(ctx, businessID, c.ID, LockUpdate)
		if err != nil {
			return n, fmt.Errorf("find bank transaction %s: %w", c.ID, err)
		}
		if !ok || t.Category != nil || t.Status.Final() || t.ArchivedAt != nil || !r.Matches(autocat.CandidateOf(t)) {
			continue
		}
		target, err := b.target(ctx, t)
		if err != nil {
			return n, err
		}
		cat, err := r.Request().Validate(target)
		if err != nil {
			continue
		}
		err = b.uow.Do(ctx, func(ctx context.Context) error {
			_, err := b.apply(ctx, t, cat, banking.MethodServiceAuto, domain.AgentServiceAuto)
			return err
		})
		if ae := apperr.From(err); ae != nil && ae.Status() < 500 {
			b.log.InfoContext(ctx, "rule does not fit the transaction", "rule_id", r.ID, "transaction_id", t.ID, "error", err)
			continue
		}
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
