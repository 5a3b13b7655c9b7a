package service

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/segmentio/kafka-go"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
)

func TestChartOfAccounts(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	us, ca := e.business("client-a", "US"), e.business("client-a", "CA")

	usChart, caChart := e.chart(us, tok), e.chart(ca, tok)
	if _, ok := usChart["SALES_TAXES_RECEIVABLE"]; ok {
		t.Fatal("a US business has the input-tax-credit account")
	}
	itc := caChart["SALES_TAXES_RECEIVABLE"]
	if itc == nil || itc["normality"] != "DEBIT" || itc["account_type"].(map[string]any)["value"] != "ASSET" {
		t.Fatalf("CA input tax credit account = %v", itc)
	}
	roots := data(e.Do(req("GET", base(us)+"/ledger/chart", tok, nil), 200))
	if roots["type"] != "Chart_Of_Accounts" {
		t.Fatalf("type = %v", roots["type"])
	}
	var rootNames []string
	for _, r := range roots["accounts"].([]any) {
		rootNames = append(rootNames, r.(map[string]any)["stable_name"].(string))
	}
	if !slices.Equal(rootNames, []string{"ASSETS", "LIABILITIES", "EQUITY", "REVENUE", "EXPENSES"}) {
		t.Fatalf("roots = %v", rootNames)
	}
	// Nesting as the issue lists it, by stable name.
	children := func(stable string) []string {
		var out []string
		for _, c := range usChart[stable]["sub_accounts"].([]any) {
			out = append(out, c.(map[string]any)["stable_name"].(string))
		}
		return out
	}
	for parent, want := range map[string][]string{
		"FIXED_ASSETS":           {"ACCUMULATED_DEPRECIATION"},
		"DISTRIBUTIONS":          {"OWNERS_DRAW"},
		"RETURNS_AND_ALLOWANCES": {"DISCOUNTS", "CUSTOMER_REFUNDS"},
		"COST_OF_GOODS_SOLD":     {"ITEMS_FOR_RESALE", "MATERIALS"},
		"PAYROLL":                {"PAYROLL_REGULAR_WAGES", "PAYROLL_CONTRACTORS", "PAYROLL_FEES"},
		"FEES":                   {"BANK_FEES", "OTHER_FEES"},
		"TAXES":                  {"SALES_TAXES", "INCOME_TAXES", "PAYROLL_TAXES", "OTHER_TAXES"},
	} {
		if got := children(parent); !slices.Equal(got, want) {
			t.Errorf("%s children = %v, want %v", parent, got, want)
		}
	}
	// Every node: a closed account type, a non-null subtype, the seeded id.
	for key, node := range usChart {
		if _, err := uuid.Parse(key); err == nil {
			continue
		}
		typ := node["account_type"].(map[string]any)
		sub, ok := node["account_subtype"].(map[string]any)
		if !domain.AccountType(typ["value"].(string)).Valid() || typ["display_name"] == "" || !ok || sub["value"] == "" || sub["display_name"] == "" {
			t.Errorf("%s: type %v subtype %v", key, typ, node["account_subtype"])
		}
		if node["id"] != domain.DefaultAccountID(us, key).String() {
			t.Errorf("%s: id %v is not the seeded id", key, node["id"])
		}
	}
	if len(caChart) != len(usChart)+2 { // by stable name and by id
		t.Fatalf("CA chart %d keys, US %d", len(caChart), len(usChart))
	}
}

func TestCategories(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a", "US")
	list := func(query string) []map[string]any {
		d := data(e.Do(req("GET", base(bid)+"/categories"+query, tok, nil), 200))
		if d["type"] != "Category_List" {
			t.Fatalf("type = %v", d["type"])
		}
		var out []map[string]any
		for _, c := range d["categories"].([]any) {
			out = append(out, c.(map[string]any))
		}
		return out
	}
	names := func(cs []map[string]any) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c["category"].(string))
		}
		return out
	}
	exclusions := []string{"PERSONAL_INFLOWS", "PERSONAL_EXPENSES", "DUPLICATE_TRANSACTION", "TRANSFER_BETWEEN_ACCOUNTS"}
	def := list("")
	if got := names(def); !slices.Equal(got, append([]string{"SALES", "UNCATEGORIZED_REVENUE", "RETURNS_AND_ALLOWANCES",
		"COST_OF_GOODS_SOLD", "OPERATING_EXPENSES", "TAXES"}, exclusions...)) {
		t.Fatalf("default categories = %v", got)
	}
	if !slices.Equal(names(list("?mode=DEFAULT")), names(def)) {
		t.Fatal("mode=DEFAULT differs from no mode")
	}
	opex := def[4]
	if opex["type"] != "AccountNested" || opex["stable_name"] != "OPERATING_EXPENSES" || opex["display_name"] != "Operating expenses" ||
		opex["id"] != domain.DefaultAccountID(bid, "OPERATING_EXPENSES").String() || len(opex["subCategories"].([]any)) < 10 {
		t.Fatalf("operating expenses = %v", opex)
	}
	excl := def[len(def)-1]
	if excl["type"] != "ExclusionNested" || excl["id"] != "TRANSFER_BETWEEN_ACCOUNTS" || excl["display_name"] != "Transfer between accounts" {
		t.Fatalf("exclusion = %v", excl)
	}
	if _, has := excl["stable_name"]; has {
		t.Fatal("an exclusion carries stable_name")
	}
	all := names(list("?mode=ALL"))
	if !slices.Equal(all, append([]string{"ASSETS", "LIABILITIES", "EQUITY", "REVENUE", "EXPENSES"}, exclusions...)) {
		t.Fatalf("ALL = %v", all)
	}
	if got := names(list("?mode=EXPENSES")); !slices.Equal(got, []string{"COST_OF_GOODS_SOLD", "OPERATING_EXPENSES", "TAXES",
		"PERSONAL_EXPENSES", "DUPLICATE_TRANSACTION", "TRANSFER_BETWEEN_ACCOUNTS"}) {
		t.Fatalf("EXPENSES = %v", got)
	}
	if got := names(list("?mode=REVENUE")); !slices.Equal(got, []string{"SALES", "UNCATEGORIZED_REVENUE", "RETURNS_AND_ALLOWANCES",
		"PERSONAL_INFLOWS", "DUPLICATE_TRANSACTION", "TRANSFER_BETWEEN_ACCOUNTS"}) {
		t.Fatalf("REVENUE = %v", got)
	}
	// A new account shows up in the list, without a stable name it is named by id.
	created := data(e.Do(req("POST", base(bid)+"/ledger/accounts", tok, map[string]any{
		"name": "Coworking", "account_type": "EXPENSE", "parent_id": stable("RENT"),
	}), 201))
	newID := created["id"].(string)
	var found map[string]any
	var walk func(cs []any)
	walk = func(cs []any) {
		for _, c := range cs {
			m := c.(map[string]any)
			if m["id"] == newID {
				found = m
			}
			if sub, ok := m["subCategories"].([]any); ok {
				walk(sub)
			}
		}
	}
	walk(data(e.Do(req("GET", base(bid)+"/categories?mode=EXPENSES", tok, nil), 200))["categories"].([]any))
	if found == nil || found["category"] != newID || found["stable_name"] != nil {
		t.Fatalf("new account in categories = %v", found)
	}
	e.DoInvalid(req("GET", base(bid)+"/categories?mode=INCOME", tok, nil), http.StatusBadRequest, "InvalidParameters")
}

// TestBusinessEventsSeedTheChart publishes business events through the
// broker, as auth-tokens does: the chart appears, a replay and an update
// add nothing, and a business that moves to Canada gets its input tax
// credit account.
func TestBusinessEventsSeedTheChart(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	w := &kafka.Writer{Addr: kafka.TCP(e.Svc.Broker.Addrs()...), Balancer: &kafka.Hash{}, BatchTimeout: 5 * time.Millisecond}
	defer w.Close()
	now := time.Now().UTC().Truncate(time.Microsecond)
	b := events.Business{ID: uuid.Must(uuid.NewV7()), ClientID: "client-a", LegalName: "Broker LLC", Country: "US",
		DefaultReportingBasis: "ACCRUAL", CreatedAt: now, UpdatedAt: now}
	publish := func(typ string, b events.Business) events.Event {
		evt, err := events.New(events.TopicBusiness, typ, "acct/auth-tokens", b.ID, b)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteMessages(ctx, events.ToMessage(evt)); err != nil {
			t.Fatal(err)
		}
		return evt
	}
	countAccounts := func() int {
		n, err := e.DB.NewSelect().Table("ledger_accounts").Where("business_id = ?", b.ID).Count(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return int(n)
	}
	countInbox := func() int {
		n, err := e.DB.NewSelect().Table("inbox").Count(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return int(n)
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for !ok() {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	created := publish(events.TypeBusinessCreated, b)
	tok := e.Token("client-a")
	waitFor("the chart", func() bool {
		resp, err := e.HTTP.Test(req("GET", base(b.ID)+"/ledger/chart", tok, nil), -1)
		return err == nil && resp.StatusCode == 200
	})
	seeded := countAccounts()
	if want := len(domain.SeedChart(b.ID, "US", now)); seeded != want {
		t.Fatalf("%d accounts seeded, want %d", seeded, want)
	}
	if ch := e.chart(b.ID, tok); ch["MEALS"] == nil {
		t.Fatal("chart lacks MEALS")
	}

	// The same event again (a redelivery) and an update: nothing new.
	inbox := countInbox()
	if err := w.WriteMessages(ctx, events.ToMessage(created)); err != nil {
		t.Fatal(err)
	}
	b.LegalName, b.UpdatedAt = "Broker Inc", now.Add(time.Second)
	publish(events.TypeBusinessUpdated, b)
	waitFor("the update", func() bool { return countInbox() >= inbox+1 })
	if n := countAccounts(); n != seeded {
		t.Fatalf("%d accounts after replay and update, want %d", n, seeded)
	}
	// A move to Canada adds the input tax credit account, once.
	b.Country, b.UpdatedAt = "CA", now.Add(2*time.Second)
	publish(events.TypeBusinessUpdated, b)
	waitFor("the CA account", func() bool { return countAccounts() == seeded+1 })
	if ch := e.chart(b.ID, tok); ch["SALES_TAXES_RECEIVABLE"] == nil {
		t.Fatal("chart lacks SALES_TAXES_RECEIVABLE after the move")
	}
	var dead int
	if err := e.DB.NewRaw("SELECT count(*) FROM dead_letters").Scan(ctx, &dead); err != nil || dead != 0 {
		t.Fatalf("dead letters %d %v", dead, err)
	}
}
