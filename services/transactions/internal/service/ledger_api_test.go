package service

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/services/transactions/internal/app"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
)

// enumOf is the error_enum of an API error ("" for nil, "internal" for
// anything else).
func enumOf(err error) string {
	if err == nil {
		return ""
	}
	ae := apperr.From(err)
	if ae.Status() >= 500 {
		return "internal"
	}
	return ae.Body().ErrorEnum
}

// inTx runs fn in a database transaction its context carries (the unit
// of work of the ledger's posting methods).
func (e *env) inTx(fn func(ctx context.Context) error) error {
	return e.DB.RunInTx(context.Background(), nil, func(ctx context.Context, tx bun.Tx) error {
		return fn(pgdb.WithTx(ctx, tx))
	})
}

// TestPostingAPI exercises the API the bank-transaction use cases call
// inside their own transactions.
func TestPostingAPI(t *testing.T) {
	e := newEnv(t)
	l := e.S.Ledger
	bid := e.business("client-a", "US")
	ctx := context.Background()
	at := time.Date(2026, 7, 1, 9, 0, 0, 0, time.UTC)
	entry := func(src domain.Source, category string, amount int64) app.NewEntry {
		return app.NewEntry{EntryType: domain.EntryBank, Agent: domain.AgentServiceAuto, EntryAt: at, Source: src,
			Lines: []domain.JournalLine{
				{Account: domain.ByStableName(category), Amount: moneyCents(amount), Direction: domain.Debit},
				{Account: domain.ByID(domain.DefaultAccountID(bid, "BANK_ACCOUNTS")), Amount: moneyCents(amount), Direction: domain.Credit},
			}}
	}
	post := func(in app.NewEntry) (domain.Entry, error) {
		var out domain.Entry
		err := e.inTx(func(ctx context.Context) error {
			var err error
			out, err = l.PostEntry(ctx, bid, in)
			return err
		})
		return out, err
	}
	countEvents := func() int {
		n, err := e.DB.NewSelect().Table("outbox").Where("type = ?", events.TypeLedgerEntryPosted).Count(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return int(n)
	}

	v1 := domain.Source{Type: "BANK_TRANSACTION", ID: "txn-9", Version: "1"}
	first, err := post(entry(v1, "MEALS", 4200))
	if err != nil {
		t.Fatal(err)
	}
	if first.EntryNumber == 0 || len(first.Lines) != 2 || first.Lines[0].Account.Name != "Meals" || first.ID.Version() != 7 {
		t.Fatalf("posted = %+v", first)
	}
	n := countEvents()

	t.Run("the same source version is a replay", func(t *testing.T) {
		again, err := post(entry(v1, "MEALS", 4200))
		if err != nil || again.ID != first.ID {
			t.Fatalf("replay = %v, %v", again.ID, err)
		}
		if countEvents() != n {
			t.Fatal("a replay published again")
		}
	})
	t.Run("the same version with other lines is a conflict", func(t *testing.T) {
		if _, err := post(entry(v1, "TRAVEL", 4200)); enumOf(err) != domain.EnumSourceConflict {
			t.Fatalf("error = %v", err)
		}
	})
	t.Run("another version while one is live", func(t *testing.T) {
		if _, err := post(entry(domain.Source{Type: "BANK_TRANSACTION", ID: "txn-9", Version: "2"}, "TRAVEL", 4200)); enumOf(err) != domain.EnumLiveEntryExists {
			t.Fatalf("error = %v", err)
		}
	})
	t.Run("recategorize: reverse and post in one transaction", func(t *testing.T) {
		var rev, second domain.Entry
		err := e.inTx(func(ctx context.Context) error {
			live, ok, err := l.LiveEntryForSource(ctx, bid, "BANK_TRANSACTION", "txn-9")
			if err != nil || !ok || live.ID != first.ID {
				return fmt.Errorf("live entry %v %v %v", live.ID, ok, err)
			}
			if rev, err = l.ReverseEntry(ctx, bid, live.ID, app.ReverseOptions{Agent: domain.AgentAPI}); err != nil {
				return err
			}
			second, err = l.PostEntry(ctx, bid, entry(domain.Source{Type: "BANK_TRANSACTION", ID: "txn-9", Version: "2"}, "TRAVEL", 4200))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if *rev.ReversalOfID != first.ID || rev.Agent != domain.AgentAPI || !rev.EntryAt.Equal(first.EntryAt) || rev.Source != first.Source ||
			second.Lines[0].Account.Name != "Travel" {
			t.Fatalf("reversal %+v, second %+v", rev, second)
		}
		live, ok, err := l.LiveEntryForSource(ctx, bid, "BANK_TRANSACTION", "txn-9")
		if err != nil || !ok || live.ID != second.ID {
			t.Fatalf("live entry after recategorizing = %v %v %v", live.ID, ok, err)
		}
		if countEvents() != n+2 {
			t.Fatalf("%d events, want the reversal's and the new entry's", countEvents()-n)
		}
		var raw []byte
		if err := e.DB.NewSelect().Table("outbox").Column("data").Where("data->>'entry_id' = ?", rev.ID.String()).Scan(ctx, &raw); err != nil {
			t.Fatal(err)
		}
		var payload events.LedgerEntryPosted
		if err := json.Unmarshal(raw, &payload); err != nil {
			t.Fatal(err)
		}
		if *payload.ReversalOfID != first.ID || payload.Lines[0].SignedAmount != -4200 {
			t.Fatalf("reversal event = %+v", payload)
		}
	})
	t.Run("reverse options and refusals", func(t *testing.T) {
		src := domain.Source{Type: "INVOICE", ID: "inv-1"}
		orig, err := post(entry(src, "SALES", 100))
		if err != nil {
			t.Fatal(err)
		}
		when := at.Add(48 * time.Hour)
		var rev domain.Entry
		err = e.inTx(func(ctx context.Context) error {
			var err error
			rev, err = l.ReverseEntry(ctx, bid, orig.ID, app.ReverseOptions{EntryAt: &when, Memo: ptr("voided")})
			return err
		})
		if err != nil || !rev.EntryAt.Equal(when) || *rev.Memo != "voided" || rev.Agent != orig.Agent {
			t.Fatalf("reversal %+v %v", rev, err)
		}
		for _, tc := range []struct {
			id   uuid.UUID
			enum string
		}{{orig.ID, domain.EnumAlreadyReversed}, {rev.ID, domain.EnumReversalOfReversal}, {uuid.New(), domain.EnumEntryNotFound}} {
			err := e.inTx(func(ctx context.Context) error {
				_, err := l.ReverseEntry(ctx, bid, tc.id, app.ReverseOptions{})
				return err
			})
			if enumOf(err) != tc.enum {
				t.Errorf("reverse %s: %v, want %s", tc.id, err, tc.enum)
			}
		}
	})
	t.Run("refused postings", func(t *testing.T) {
		bad := entry(domain.Source{Type: "BANK_TRANSACTION", ID: "txn-x"}, "NO_SUCH", 5)
		if _, err := post(bad); enumOf(err) != domain.EnumUnknownAccount {
			t.Errorf("unknown stable name: %v", err)
		}
		unbalanced := entry(domain.Source{Type: "BANK_TRANSACTION", ID: "txn-y"}, "MEALS", 5)
		unbalanced.Lines[1].Amount = 4
		if _, err := post(unbalanced); enumOf(err) != domain.EnumUnbalancedEntry {
			t.Errorf("unbalanced: %v", err)
		}
		for name, in := range map[string]app.NewEntry{
			"no source": entry(domain.Source{}, "MEALS", 5),
			"no entry_at": func() app.NewEntry {
				x := entry(domain.Source{Type: "T", ID: "1"}, "MEALS", 5)
				x.EntryAt = time.Time{}
				return x
			}(),
			"unknown type": func() app.NewEntry {
				x := entry(domain.Source{Type: "T", ID: "2"}, "MEALS", 5)
				x.EntryType = "GIFT"
				return x
			}(),
			"no agent": func() app.NewEntry { x := entry(domain.Source{Type: "T", ID: "3"}, "MEALS", 5); x.Agent = ""; return x }(),
		} {
			if _, err := post(in); enumOf(err) != "internal" {
				t.Errorf("%s: %v (a programming error, not a client's)", name, err)
			}
		}
	})
	t.Run("accounts", func(t *testing.T) {
		a, err := l.AccountByStableName(ctx, bid, "CREDIT_CARDS")
		if err != nil || a.Type != domain.Liability {
			t.Fatalf("by stable name: %+v %v", a, err)
		}
		if b, err := l.AccountByID(ctx, bid, a.ID); err != nil || b.ID != a.ID {
			t.Fatalf("by id: %v", err)
		}
		if _, err := l.AccountByStableName(ctx, bid, "NOPE"); enumOf(err) != domain.EnumAccountNotFound {
			t.Fatalf("unknown stable name: %v", err)
		}
		if _, err := l.AccountByID(ctx, e.business("client-a", "US"), a.ID); enumOf(err) != domain.EnumAccountNotFound {
			t.Fatalf("another business's account: %v", err)
		}
	})
	t.Run("bank ledger accounts", func(t *testing.T) {
		create := func(in app.BankLedgerAccount) (domain.Account, error) {
			var out domain.Account
			err := e.inTx(func(ctx context.Context) error {
				var err error
				out, err = l.CreateBankLedgerAccount(ctx, bid, in)
				return err
			})
			return out, err
		}
		checking, err := create(app.BankLedgerAccount{Kind: app.Depository, Name: "Checking ••1234", AccountNumber: ptr("1234"), StableName: ptr("CUSTOM_ACCOUNT:abc")})
		if err != nil {
			t.Fatal(err)
		}
		if *checking.ParentID != domain.DefaultAccountID(bid, "BANK_ACCOUNTS") || checking.Type != domain.Asset || checking.Normality != domain.Debit ||
			checking.Subtype != "BANK_ACCOUNTS" || checking.Default {
			t.Fatalf("checking = %+v", checking)
		}
		again, err := create(app.BankLedgerAccount{Kind: app.Depository, Name: "Checking", StableName: ptr("CUSTOM_ACCOUNT:abc")})
		if err != nil || again.ID != checking.ID {
			t.Fatalf("idempotent create = %v %v", again.ID, err)
		}
		card, err := create(app.BankLedgerAccount{Kind: app.Credit, Name: "Visa"})
		if err != nil || *card.ParentID != domain.DefaultAccountID(bid, "CREDIT_CARDS") || card.Type != domain.Liability ||
			card.Normality != domain.Credit || card.Subtype != "CREDIT_CARDS" {
			t.Fatalf("card = %+v %v", card, err)
		}
		if _, err := create(app.BankLedgerAccount{Kind: app.Credit, Name: "Visa", StableName: ptr("CUSTOM_ACCOUNT:abc")}); enumOf(err) != domain.EnumDuplicateStableName {
			t.Fatalf("stable name under the other parent: %v", err)
		}
		if _, err := create(app.BankLedgerAccount{Kind: "LOAN", Name: "x"}); enumOf(err) != "internal" {
			t.Fatalf("unknown kind: %v", err)
		}
		// Money moves from the card to the checking account.
		in := entry(domain.Source{Type: "TRANSFER", ID: "t-1"}, "MEALS", 300)
		in.Lines[0].Account, in.Lines[1].Account = domain.ByID(checking.ID), domain.ByID(card.ID)
		if _, err := post(in); err != nil {
			t.Fatal(err)
		}
		bal := e.balances(bid, e.Token("client-a"), "")
		if bal[checking.ID.String()] != 300 || bal[card.ID.String()] != 300 || bal["CREDIT_CARDS"] != 300 {
			t.Fatalf("balances %d %d", bal[checking.ID.String()], bal[card.ID.String()])
		}
	})
}

// TestConcurrentRecategorization runs many recategorizations of one source
// at once, each reversing the live entry and posting a new version in one
// transaction: whatever interleaving, exactly one entry stays live and the
// reversals pair up with the entries they reverse.
func TestConcurrentRecategorization(t *testing.T) {
	e := newEnv(t)
	l := e.S.Ledger
	bid := e.business("client-a", "US")
	categories := []string{"MEALS", "TRAVEL", "SOFTWARE", "RENT"}
	const workers, rounds = 8, 5
	var mu sync.Mutex
	committed, refused := 0, map[string]int{}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for r := range rounds {
				err := e.inTx(func(ctx context.Context) error {
					if live, ok, err := l.LiveEntryForSource(ctx, bid, "BANK_TRANSACTION", "contended"); err != nil {
						return err
					} else if ok {
						if _, err := l.ReverseEntry(ctx, bid, live.ID, app.ReverseOptions{}); err != nil {
							return err
						}
					}
					_, err := l.PostEntry(ctx, bid, app.NewEntry{
						EntryType: domain.EntryBank, Agent: domain.AgentAPI, EntryAt: time.Now(),
						Source: domain.Source{Type: "BANK_TRANSACTION", ID: "contended", Version: strconv.Itoa(w*rounds + r)},
						Lines: []domain.JournalLine{
							{Account: domain.ByStableName(categories[(w+r)%len(categories)]), Amount: 999, Direction: domain.Debit},
							{Account: domain.ByStableName("BANK_ACCOUNTS"), Amount: 999, Direction: domain.Credit},
						},
					})
					return err
				})
				mu.Lock()
				if err == nil {
					committed++
				} else {
					refused[enumOf(err)]++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	t.Logf("%d committed, refused %v", committed, refused)
	for enum := range refused {
		if enum != domain.EnumAlreadyReversed && enum != domain.EnumLiveEntryExists {
			t.Fatalf("unexpected failures: %v", refused)
		}
	}
	if committed == 0 {
		t.Fatal("no recategorization committed")
	}
	var live, originals, reversals int
	err := e.DB.NewRaw(`SELECT
		count(*) FILTER (WHERE reversal_of_id IS NULL AND reversal_id IS NULL),
		count(*) FILTER (WHERE reversal_of_id IS NULL),
		count(*) FILTER (WHERE reversal_of_id IS NOT NULL)
		FROM ledger_entries WHERE source_id = 'contended'`).Scan(context.Background(), &live, &originals, &reversals)
	if err != nil {
		t.Fatal(err)
	}
	if live != 1 || originals != committed || reversals != committed-1 {
		t.Fatalf("live %d, originals %d, reversals %d after %d commits (%v refused)", live, originals, reversals, committed, refused)
	}
	// Net effect: one categorization's worth on the bank account.
	if got := e.balances(bid, e.Token("client-a"), "")["BANK_ACCOUNTS"]; got != -999 {
		t.Fatalf("bank balance %d, want -999", got)
	}
}
