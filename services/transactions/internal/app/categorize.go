package app

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking/salestax"
)

// SourceBankTransaction is the ledger source type of a bank transaction's
// entries (source id: the transaction id; version: its version).
const SourceBankTransaction = "BANK_TRANSACTION"

// Businesses finds a business's projection (country, province) for the
// Canadian tax rules.
type Businesses interface {
	Find(ctx context.Context, businessID uuid.UUID) (events.Business, bool, error)
}

// target is what the domain checks a categorization of t against.
func (b *Banking) target(ctx context.Context, t banking.BankTransaction) (banking.CategorizationTarget, error) {
	out := banking.CategorizationTarget{Amount: t.Amount, Direction: t.Direction, Date: t.Date}
	if b.businesses == nil {
		return out, nil
	}
	biz, ok, err := b.businesses.Find(ctx, t.BusinessID)
	if err != nil {
		return out, fmt.Errorf("find business %s: %w", t.BusinessID, err)
	}
	if ok {
		out.Country = biz.Country
		if biz.USState != nil {
			if p, ok := salestax.ParseProvince(*biz.USState); ok {
				out.Province = p
			}
		}
	}
	return out, nil
}

// TaxOptionsOf returns, for a listing, what gives each transaction of the
// business its Canadian tax options (the business is looked up once).
func (b *Banking) TaxOptionsOf(ctx context.Context, businessID uuid.UUID) (func(banking.BankTransaction) []salestax.Option, error) {
	base, err := b.target(ctx, banking.BankTransaction{BusinessID: businessID})
	if err != nil {
		return nil, err
	}
	return func(t banking.BankTransaction) []salestax.Option {
		tg := base
		tg.Date = t.Date
		return tg.TaxOptions()
	}, nil
}

// TaxOptions are the transaction's Canadian tax options (nil unless the
// business is Canadian).
func (b *Banking) TaxOptions(ctx context.Context, t banking.BankTransaction) ([]salestax.Option, error) {
	tg, err := b.target(ctx, t)
	if err != nil {
		return nil, err
	}
	return tg.TaxOptions(), nil
}

// resolver resolves categories to the business's live ledger accounts in
// one transaction. The clearing account of TRANSFER_BETWEEN_ACCOUNTS is
// not in the default chart: it is created (under ASSETS) the first time a
// transfer is categorized.
//
// known holds accounts the caller has already share-locked in its unit of
// work (prefetched): a reference among them costs no query.
type resolver struct {
	b          *Banking
	businessID uuid.UUID
	known      []domain.Account
}

func domainRef(ref banking.AccountRef) domain.AccountRef {
	if ref.StableName != "" {
		return domain.ByStableName(ref.StableName)
	}
	return domain.ByID(ref.ID)
}

func (r resolver) ResolveAccount(ctx context.Context, ref banking.AccountRef) (banking.LedgerAccount, error) {
	dref := domainRef(ref)
	if i := slices.IndexFunc(r.known, func(a domain.Account) bool { return covers([]domain.Account{a}, dref) }); i >= 0 {
		if r.known[i].Archived() {
			return banking.LedgerAccount{}, fmt.Errorf("%s: %w", dref, banking.ErrAccountNotFound)
		}
		return ledgerAccount(r.known[i]), nil
	}
	found, err := r.b.ledger.LockAccounts(ctx, r.businessID, []domain.AccountRef{dref})
	if err != nil {
		return banking.LedgerAccount{}, fmt.Errorf("resolve %s: %w", dref, err)
	}
	if len(found) == 0 && ref.StableName == banking.StableTransfersInTransit {
		name := ref.StableName
		parent := domain.ByStableName(domain.StableAssets)
		a, err := r.b.ledger.createAccount(ctx, r.businessID, NewAccountInput{
			Draft:  domain.AccountDraft{Name: "Transfers in transit", StableName: &name, Type: domain.Asset},
			Parent: &parent,
		})
		if err != nil {
			return banking.LedgerAccount{}, fmt.Errorf("create %s: %w", name, err)
		}
		found = []domain.Account{a}
	}
	if len(found) == 0 || found[0].Archived() {
		return banking.LedgerAccount{}, fmt.Errorf("%s: %w", dref, banking.ErrAccountNotFound)
	}
	return ledgerAccount(found[0]), nil
}

func ledgerAccount(a domain.Account) banking.LedgerAccount {
	out := banking.LedgerAccount{ID: a.ID, Name: a.Name, Class: banking.AccountClass(a.Type)}
	if a.StableName != nil {
		out.StableName = *a.StableName
	}
	return out
}

// Categorize is PUT/POST /bank-transactions/{id}/categorize. In one unit
// of work it locks the transaction's row, checks the request against it
// (every violation is a 400 and nothing is posted), reverses the
// transaction's live entry if any, posts the new one (source version =
// the new version), records the category, status and method API, and
// publishes the snapshot. The row lock makes concurrent categorizations of
// one transaction run one after the other, so at most one entry is live.
// Giving a transaction the categorization it has (by API) changes nothing:
// a repeated call posts no entry and keeps the version. An archived
// transaction is the 409 BankTransactionArchived.
func (b *Banking) Categorize(ctx context.Context, businessID, id uuid.UUID, req banking.CategorizationRequest) (banking.BankTransaction, error) {
	var out banking.BankTransaction
	err := b.uow.Do(ctx, func(ctx context.Context) error {
		t, ok, err := b.store.FindBankTransaction(ctx, businessID, id, LockUpdate)
		if err != nil {
			return fmt.Errorf("find bank transaction %s: %w", id, err)
		}
		if !ok {
			return ErrBankTransactionNotFound()
		}
		target, err := b.target(ctx, t)
		if err != nil {
			return err
		}
		c, err := req.Validate(target)
		if err != nil {
			return err
		}
		p, err := b.prepare(ctx, t, c)
		if err != nil {
			return err
		}
		if out, _, err = b.post(ctx, t, p, banking.MethodAPI, domain.AgentAPI); err != nil {
			return err
		}
		// A rule for the counterparty's other transactions may be offered
		// (rule_suggestions.go).
		return b.suggestRule(ctx, out)
	})
	return out, err
}

// apply posts the checked categorization c of t (locked by the caller)
// and saves and publishes the result, even when t has that categorization
// already (a repost: its amount, direction or date changed, say). Every
// account it needs (the bank account, the categories, the live entry's) is
// fetched and share-locked in one query; the live entry's reversal and the
// new entry go in with one Publish (Ledger.Repost).
func (b *Banking) apply(ctx context.Context, t banking.BankTransaction, c banking.Categorization, method banking.CategorizationMethod, agent domain.Agent) (banking.BankTransaction, error) {
	p, err := b.prepare(ctx, t, c)
	if err != nil {
		return banking.BankTransaction{}, err
	}
	p.repost = true
	out, _, err := b.post(ctx, t, p, method, agent)
	return out, err
}

// preparedCategorization is a categorization of one transaction resolved
// to the business's accounts and turned into its journal lines, with the
// transaction's live entry: everything that may refuse it (400 or 409)
// has been checked, nothing is written yet.
type preparedCategorization struct {
	c       banking.Categorization
	rc      banking.ResolvedCategorization
	posting banking.Posting
	live    *domain.Entry
	known   []domain.Account
	// repost posts even an unchanged categorization.
	repost bool
}

// prepare checks c against t (locked by the caller, live) and the
// business's chart and reads what posting it needs; a 4xx error names the
// field of the categorize body at fault.
func (b *Banking) prepare(ctx context.Context, t banking.BankTransaction, c banking.Categorization) (preparedCategorization, error) {
	if err := t.CheckLive(); err != nil {
		return preparedCategorization{}, err
	}
	refs := []domain.AccountRef{domain.ByID(t.LedgerAccountID)}
	for _, r := range banking.Refs(c) {
		refs = append(refs, domainRef(r))
	}
	live, hasLive, known, err := b.ledger.LiveEntryAndAccounts(ctx, t.BusinessID, SourceBankTransaction, t.ID.String(), refs)
	if err != nil {
		return preparedCategorization{}, fmt.Errorf("live entry and accounts of %s: %w", t.ID, err)
	}
	rc, err := banking.Resolve(ctx, resolver{b: b, businessID: t.BusinessID, known: known}, c)
	if err != nil {
		return preparedCategorization{}, err
	}
	i := slices.IndexFunc(known, func(a domain.Account) bool { return a.ID == t.LedgerAccountID })
	if i < 0 {
		return preparedCategorization{}, fmt.Errorf("bank ledger account %s of %s: %w", t.LedgerAccountID, t.ID, domain.ErrAccountNotFound())
	}
	posting, err := banking.BuildPosting(ledgerAccount(known[i]), rc)
	if err != nil {
		return preparedCategorization{}, err
	}
	p := preparedCategorization{c: c, rc: rc, posting: posting, known: known}
	if hasLive {
		p.live = &live
	}
	return p, nil
}

// unchanged reports whether t has p's categorization already, by method,
// with its entry live (none for a duplicate): posting it again would change
// nothing.
func (p preparedCategorization) unchanged(t banking.BankTransaction, method banking.CategorizationMethod) bool {
	if p.repost || t.Category == nil || t.Match != nil || t.Status != p.c.Status() || t.Method == nil || *t.Method != method {
		return false
	}
	if (p.live != nil) == p.posting.Empty() {
		return false
	}
	code := p.c.TaxCode()
	if (t.TaxCode == nil) != (code == "") || t.TaxCode != nil && *t.TaxCode != code {
		return false
	}
	return t.Category.Same(*banking.NewTxnCategory(t, p.rc, t.UpdatedAt))
}

// post records the prepared categorization p of t (locked by the caller):
// unless it changes nothing (p.unchanged), the live entry is reversed and
// the new one posted, the row saved and the snapshot published. It reports
// whether anything changed.
func (b *Banking) post(ctx context.Context, t banking.BankTransaction, p preparedCategorization, method banking.CategorizationMethod, agent domain.Agent) (banking.BankTransaction, bool, error) {
	if p.unchanged(t, method) {
		return t, false, nil
	}
	t.Version++
	var in *NewEntry
	if !p.posting.Empty() {
		lines := make([]domain.JournalLine, len(p.posting.Lines))
		for i, l := range p.posting.Lines {
			lines[i] = domain.JournalLine{
				Account: domain.ByID(l.Account.ID), Amount: l.Amount, Direction: domain.Direction(l.Side), Tags: l.Tags,
			}
		}
		in = &NewEntry{
			EntryType: domain.EntryBank, Agent: agent, EntryAt: t.Date, Memo: t.Memo, Tags: t.EntryTags(),
			Source: domain.Source{Type: SourceBankTransaction, ID: t.ID.String(), Version: strconv.Itoa(t.Version)},
			Lines:  lines,
		}
	}
	if p.live != nil || in != nil {
		if _, _, err := b.ledger.Repost(ctx, t.BusinessID, p.live, ReverseOptions{Agent: agent}, in, p.known); err != nil {
			return banking.BankTransaction{}, false, fmt.Errorf("repost entry of %s: %w", t.ID, err)
		}
	}
	// A matched deposit recategorized: its payment is open again.
	if err := b.releaseMatch(ctx, &t); err != nil {
		return banking.BankTransaction{}, false, err
	}
	now := b.clock()
	t.Status, t.Method, t.UpdatedAt = p.c.Status(), &method, now
	t.TaxCode = nil
	if code := p.c.TaxCode(); code != "" {
		t.TaxCode = &code
	}
	t.Category = banking.NewTxnCategory(t, p.rc, now)
	if err := b.store.UpdateBankTransaction(ctx, t); err != nil {
		return banking.BankTransaction{}, false, fmt.Errorf("update bank transaction %s: %w", t.ID, err)
	}
	if err := b.publishTransactions(ctx, t); err != nil {
		return banking.BankTransaction{}, false, fmt.Errorf("publish transaction %s: %w", t.ID, err)
	}
	return t, true, nil
}
