package postgres

import (
	"context"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/pkg/testkit"
	"github.com/acctsuite/acct/services/customers-invoices/internal/app"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

func ptr[T any](v T) *T { return &v }

// TestSchemaGuardsCustomers: rows that break the customer's invariants are
// refused by the database itself, whatever code writes them.
func TestSchemaGuardsCustomers(t *testing.T) {
	db := testkit.DB(t, "invoicing", Migrations)
	ctx := context.Background()
	bid := uuid.New()
	insert := func(cols, vals string) error {
		_, err := db.ExecContext(ctx, `INSERT INTO customers (business_id, id, version, created_at, updated_at, `+cols+`)
			VALUES (?, ?, 1, now(), now(), `+vals+`)`, bid, uuid.New())
		return err
	}
	if err := insert("status, company_name", "'ACTIVE', 'Ok Co'"); err != nil {
		t.Fatalf("a valid row: %v", err)
	}
	for name, row := range map[string][2]string{
		"no name":                  {"status", "'ACTIVE'"},
		"unknown status":           {"status, company_name", "'DELETED', 'X'"},
		"archived without time":    {"status, company_name", "'ARCHIVED', 'X'"},
		"active with archive time": {"status, company_name, archived_at", "'ACTIVE', 'X', now()"},
		"tags not an array":        {"status, company_name, tags", `'ACTIVE', 'X', '{"k":"v"}'`},
	} {
		if err := insert(row[0], row[1]); !pgdb.IsCheckViolation(err) {
			t.Errorf("%s: err = %v, want a check violation", name, err)
		}
	}
	// One external id per business; NULLs never collide.
	if err := insert("status, company_name, external_id", "'ACTIVE', 'A', 'ext'"); err != nil {
		t.Fatal(err)
	}
	if err := insert("status, company_name, external_id", "'ACTIVE', 'B', 'ext'"); !pgdb.IsUniqueViolation(err) || pgdb.Constraint(err) != externalIDIndex {
		t.Errorf("duplicate external id: %v", err)
	}
	if err := insert("status, company_name", "'ACTIVE', 'C'"); err != nil {
		t.Errorf("a second customer without external id: %v", err)
	}
}

// TestStoreRoundTrip: a customer written and read back is the same, tags
// and timestamps included; the name sort key is the database's.
func TestStoreRoundTrip(t *testing.T) {
	db := testkit.DB(t, "invoicing", Migrations)
	ctx := context.Background()
	s := New(db)
	now := time.Now().UTC().Truncate(time.Microsecond)
	bid := uuid.New()
	in := domain.CustomerInput{ExternalID: ptr("e-1"), IndividualName: ptr("Ann"), CompanyName: ptr("Édith Co"),
		Email: ptr("a@b.example"), Memo: ptr("two\nlines"), Tags: []tags.KeyValue{{Key: "k", Value: "v", ValueDisplayName: ptr("V")}}}
	c := domain.NewCustomer(bid, uuid.Must(uuid.NewV7()), in, now)
	if ok, err := s.InsertCustomer(ctx, c); err != nil || !ok {
		t.Fatalf("insert: %v %v", ok, err)
	}
	twin := domain.NewCustomer(bid, uuid.Must(uuid.NewV7()), in, now)
	if ok, err := s.InsertCustomer(ctx, twin); err != nil || ok {
		t.Fatalf("insert of the same external id: inserted %v, %v", ok, err)
	}
	got, ok, err := s.FindCustomer(ctx, bid, c.ID, false)
	if err != nil || !ok {
		t.Fatalf("find: %v %v", ok, err)
	}
	if *got.CompanyName != "Édith Co" || *got.Memo != "two\nlines" || got.Version != 1 || !got.CreatedAt.Equal(now) ||
		!reflect.DeepEqual(got.Tags, c.Tags) || got.Status != domain.StatusActive || got.Email == nil || got.MobilePhone != nil {
		t.Fatalf("read back %+v, want %+v", got, c)
	}
	if _, ok, _ := s.FindCustomer(ctx, uuid.New(), c.ID, false); ok {
		t.Fatal("found under another business")
	}
	p, err := page.Parse(nil, app.CustomerPageSpec, page.NewCodec([]byte("k")), "")
	if err != nil {
		t.Fatal(err)
	}
	list, _, err := s.FindCustomers(ctx, bid, domain.CustomerFilter{}, p)
	if err != nil || len(list) != 1 || list[0].ID != c.ID {
		t.Fatalf("list = %v, %v", list, err)
	}
}
