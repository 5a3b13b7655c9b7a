package service

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
)

// acct is an account of the fixture chart (the default chart's shape);
// an empty stable name is a custom account (its key names it here only).
type acct struct {
	stable, name, typ, subtype, normality string
	parents                               []string // stable names, root first
}

var chart = map[string]acct{
	"CASH":                   {"CASH", "Cash", "ASSET", "CASH", "DEBIT", []string{"ASSETS"}},
	"SALES":                  {"SALES", "Sales", "REVENUE", "SALES", "CREDIT", []string{"REVENUE"}},
	"UNCATEGORIZED_REVENUE":  {"UNCATEGORIZED_REVENUE", "Uncategorized revenue", "REVENUE", "UNCATEGORIZED_REVENUE", "CREDIT", []string{"REVENUE"}},
	"DISCOUNTS":              {"DISCOUNTS", "Discounts", "REVENUE", "RETURNS_AND_ALLOWANCES", "DEBIT", []string{"REVENUE", "RETURNS_AND_ALLOWANCES"}},
	"MATERIALS":              {"MATERIALS", "Materials", "EXPENSE", "COST_OF_GOODS_SOLD", "DEBIT", []string{"EXPENSES", "COST_OF_GOODS_SOLD"}},
	"RENT":                   {"RENT", "Rent", "EXPENSE", "OPERATING_EXPENSES", "DEBIT", []string{"EXPENSES", "OPERATING_EXPENSES"}},
	"UNCATEGORIZED_EXPENSES": {"UNCATEGORIZED_EXPENSES", "Uncategorized expenses", "EXPENSE", "UNCATEGORIZED_EXPENSES", "DEBIT", []string{"EXPENSES", "OPERATING_EXPENSES"}},
	"BANK_FEES":              {"BANK_FEES", "Bank fees", "EXPENSE", "FEES", "DEBIT", []string{"EXPENSES", "OPERATING_EXPENSES", "FEES"}},
	"INCOME_TAXES":           {"INCOME_TAXES", "Income taxes", "EXPENSE", "TAXES", "DEBIT", []string{"EXPENSES", "TAXES"}},
	"ACCOUNTS_RECEIVABLE":    {"ACCOUNTS_RECEIVABLE", "Accounts receivable", "ASSET", "ACCOUNTS_RECEIVABLE", "DEBIT", []string{"ASSETS"}},
	"UNDEPOSITED_FUNDS":      {"UNDEPOSITED_FUNDS", "Undeposited funds", "ASSET", "UNDEPOSITED_FUNDS", "DEBIT", []string{"ASSETS"}},
	"SALES_TAXES_PAYABLE":    {"SALES_TAXES_PAYABLE", "Sales taxes payable", "LIABILITY", "SALES_TAXES_PAYABLE", "CREDIT", []string{"LIABILITIES"}},
	"ACCOUNTS_PAYABLE":       {"ACCOUNTS_PAYABLE", "Accounts payable", "LIABILITY", "ACCOUNTS_PAYABLE", "CREDIT", []string{"LIABILITIES"}},
	"OTHER_FEES":             {"OTHER_FEES", "Other fees", "EXPENSE", "FEES", "DEBIT", []string{"EXPENSES", "OPERATING_EXPENSES", "FEES"}},
	"UTILITIES":              {"UTILITIES", "Utilities", "EXPENSE", "OPERATING_EXPENSES", "DEBIT", []string{"EXPENSES", "OPERATING_EXPENSES"}},
	"BAD_DEBT":               {"BAD_DEBT", "Bad debt", "EXPENSE", "OPERATING_EXPENSES", "DEBIT", []string{"EXPENSES", "OPERATING_EXPENSES"}},
	"ITEMS_FOR_RESALE":       {"ITEMS_FOR_RESALE", "Items for resale", "EXPENSE", "COST_OF_GOODS_SOLD", "DEBIT", []string{"EXPENSES", "COST_OF_GOODS_SOLD"}},
	"INSURANCE":              {"INSURANCE", "Insurance", "EXPENSE", "OPERATING_EXPENSES", "DEBIT", []string{"EXPENSES", "OPERATING_EXPENSES"}},
	"PAYROLL_REGULAR_WAGES":  {"PAYROLL_REGULAR_WAGES", "Regular wages", "EXPENSE", "PAYROLL", "DEBIT", []string{"EXPENSES", "OPERATING_EXPENSES", "PAYROLL"}},
	"FIXED_ASSETS":           {"FIXED_ASSETS", "Fixed assets", "ASSET", "FIXED_ASSETS", "DEBIT", []string{"ASSETS"}},
	"BANK_ACCOUNTS":          {"BANK_ACCOUNTS", "Bank accounts", "ASSET", "BANK_ACCOUNTS", "DEBIT", []string{"ASSETS"}},
	"NOTES_PAYABLE":          {"NOTES_PAYABLE", "Notes payable", "LIABILITY", "NOTES_PAYABLE", "CREDIT", []string{"LIABILITIES"}},
	"CREDIT_CARDS":           {"CREDIT_CARDS", "Credit cards", "LIABILITY", "CREDIT_CARDS", "CREDIT", []string{"LIABILITIES"}},
	"CONTRIBUTIONS":          {"CONTRIBUTIONS", "Owner contributions", "EQUITY", "CONTRIBUTIONS", "CREDIT", []string{"EQUITY"}},
	"OWNERS_DRAW":            {"OWNERS_DRAW", "Owner's draw", "EQUITY", "DISTRIBUTIONS", "DEBIT", []string{"EQUITY", "DISTRIBUTIONS"}},
	"RETAINED_EARNINGS":      {"RETAINED_EARNINGS", "Retained earnings", "EQUITY", "RETAINED_EARNINGS", "CREDIT", []string{"EQUITY"}},
	"INTEREST_EXPENSE":       {"INTEREST_EXPENSE", "Interest expense", "EXPENSE", "INTEREST_EXPENSE", "DEBIT", []string{"EXPENSES", "OPERATING_EXPENSES"}},
	// Custom accounts, as a platform creates them.
	"DIESEL_FUEL": {"", "Diesel fuel", "EXPENSE", "OPERATING_EXPENSES", "DEBIT", []string{"EXPENSES", "OPERATING_EXPENSES"}},
	"LICENSES":    {"", "Licenses & permits", "EXPENSE", "OPERATING_EXPENSES", "DEBIT", []string{"EXPENSES", "OPERATING_EXPENSES"}},
	"FERTILIZER":  {"", "Fertilizer", "EXPENSE", "COST_OF_GOODS_SOLD", "DEBIT", []string{"EXPENSES", "COST_OF_GOODS_SOLD"}},
}

var parentNames = map[string]string{
	"ASSETS": "Assets", "LIABILITIES": "Liabilities", "REVENUE": "Revenue", "RETURNS_AND_ALLOWANCES": "Returns and allowances", "EXPENSES": "Expenses",
	"COST_OF_GOODS_SOLD": "Cost of goods sold", "OPERATING_EXPENSES": "Operating expenses", "FEES": "Fees", "TAXES": "Taxes",
	"PAYROLL": "Payroll", "EQUITY": "Equity", "DISTRIBUTIONS": "Distributions",
}

func ptr[T any](v T) *T { return &v }

// line is a line on the fixture account stable of business bid; kv are
// tag key/value pairs.
func line(bid uuid.UUID, stable, direction string, amount int64, kv ...string) events.LedgerLine {
	a, ok := chart[stable]
	if !ok {
		panic("no fixture account " + stable)
	}
	signed := amount
	if direction == "CREDIT" {
		signed = -amount
	}
	l := events.LedgerLine{LineID: uuid.New(), AccountID: events.DefaultAccountID(bid, stable), AccountName: a.name,
		StableName: ptr(stable), AccountType: a.typ, AccountSubtype: a.subtype, Normality: a.normality,
		Direction: direction, Amount: amount, SignedAmount: signed, Tags: []events.LedgerTag{}}
	if a.stable == "" {
		l.AccountID, l.StableName = customAccountID(bid, stable), nil
	}
	for _, p := range a.parents {
		l.Ancestors = append(l.Ancestors, events.LedgerAccountRef{AccountID: events.DefaultAccountID(bid, p), StableName: ptr(p), Name: parentNames[p]})
	}
	for i := 0; i+1 < len(kv); i += 2 {
		l.Tags = append(l.Tags, events.LedgerTag{ID: uuid.New(), Key: kv[i], Value: kv[i+1]})
	}
	return l
}

// customAccountID is the id of the fixture's custom account key of bid.
func customAccountID(bid uuid.UUID, key string) uuid.UUID {
	return uuid.NewSHA1(uuid.NameSpaceOID, []byte(bid.String()+":"+key))
}

// entry is a posted entry of bid on day (YYYY-MM-DD).
func entry(bid uuid.UUID, day string, lines ...events.LedgerLine) events.LedgerEntryPosted {
	at, err := time.Parse("2006-01-02", day)
	if err != nil {
		panic(err)
	}
	return events.LedgerEntryPosted{EntryID: uuid.Must(uuid.NewV7()), BusinessID: bid, LedgerID: events.LedgerID(bid),
		EntryType: "MANUAL", Agent: "API", Date: day, EntryAt: at.Add(9 * time.Hour), SourceType: "MANUAL_JOURNAL_ENTRY",
		SourceID: uuid.NewString(), Tags: []events.LedgerTag{}, Lines: lines, CreatedAt: at.Add(9 * time.Hour)}
}

// reversal is the entry reversing e on day.
func reversal(e events.LedgerEntryPosted, day string) events.LedgerEntryPosted {
	lines := make([]events.LedgerLine, len(e.Lines))
	for i, l := range e.Lines {
		l.LineID = uuid.New()
		l.SignedAmount = -l.SignedAmount
		if l.Direction == "DEBIT" {
			l.Direction = "CREDIT"
		} else {
			l.Direction = "DEBIT"
		}
		lines[i] = l
	}
	r := entry(e.BusinessID, day, lines...)
	r.EntryType, r.ReversalOfID = e.EntryType, &e.EntryID
	return r
}

// event is p as the ledger publishes it.
func event(t testing.TB, p events.LedgerEntryPosted) events.Event {
	t.Helper()
	evt, err := events.New(events.TopicLedger, events.TypeLedgerEntryPosted, "acct/transactions", p.BusinessID, p)
	if err != nil {
		t.Fatal(err)
	}
	return evt
}

// bankTx is a version-1 snapshot of a bank transaction of bid on day
// (YYYY-MM-DD) in status, categorized as stable (a fixture account) when
// it is not empty.
func bankTx(bid uuid.UUID, day, status, stable string, amount int64) events.BankTransactionUpserted {
	at, err := time.Parse("2006-01-02", day)
	if err != nil {
		panic(err)
	}
	p := events.BankTransactionUpserted{TransactionID: uuid.New(), BusinessID: bid, Version: 1, Source: "API",
		SourceTransactionID: uuid.NewString(), AccountName: ptr("Checking"), AccountMask: ptr("1234"),
		LedgerAccountID: events.DefaultAccountID(bid, "CASH"), Date: day, DateTime: at.Add(10 * time.Hour),
		Description: ptr("Payment " + day), CounterpartyName: ptr("Acme"), Direction: "DEBIT", Amount: amount, SignedAmount: -amount,
		Status: status, Splits: []events.BankSplit{}, Tags: []events.LedgerTag{}, ImportedAt: at, UpdatedAt: at}
	if stable != "" {
		p.Category = &events.BankCategory{AccountID: ptr(events.DefaultAccountID(bid, stable)), StableName: ptr(stable), DisplayName: chart[stable].name}
	}
	return p
}

// txEvent is p as the transactions service publishes it.
func txEvent(t testing.TB, p events.BankTransactionUpserted) events.Event {
	t.Helper()
	evt, err := events.New(events.TopicTransactions, events.TypeBankTransactionUpserted, "acct/transactions", p.BusinessID, p)
	if err != nil {
		t.Fatal(err)
	}
	return evt
}

// goldenBankTxs are the golden history's bank transactions: categorized
// ones in March and an uncategorized one on 2026-04-03 (the uncategorized
// expense).
func goldenBankTxs(bid uuid.UUID) []events.BankTransactionUpserted {
	return []events.BankTransactionUpserted{
		bankTx(bid, "2026-03-10", "CATEGORIZED", "RENT", 2000),
		bankTx(bid, "2026-03-20", "MATCHED", "INCOME_TAXES", 1000),
		bankTx(bid, "2026-04-03", "READY_FOR_INPUT", "", 100),
	}
}

// goldenTxEvents are goldenBankTxs as events.
func goldenTxEvents(t testing.TB, bid uuid.UUID) []events.Event {
	var out []events.Event
	for _, p := range goldenBankTxs(bid) {
		out = append(out, txEvent(t, p))
	}
	return out
}
