package postgres_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"os"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/testkit"
	"github.com/acctsuite/acct/services/transactions/internal/acctsync"
	"github.com/acctsuite/acct/services/transactions/internal/acctsync/postgres"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

func hash(s string) []byte { h := sha256.Sum256([]byte(s)); return h[:] }

func TestStates(t *testing.T) {
	ctx := context.Background()
	s := postgres.New(testkit.DB(t, "transactions", postgres.Migrations))
	bid := uuid.New()
	old := acctsync.State{Hash: hash("old"), BusinessID: bid, ClientID: "c", CreatedAt: t0, ExpiresAt: t0.Add(time.Minute)}
	if err := s.SaveState(ctx, old, t0); err != nil {
		t.Fatal(err)
	}
	fresh := acctsync.State{Hash: hash("fresh"), BusinessID: bid, ClientID: "c", CreatedAt: t0.Add(time.Hour), ExpiresAt: t0.Add(time.Hour + 10*time.Minute)}
	if err := s.SaveState(ctx, fresh, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, found, err := s.ConsumeState(ctx, old.Hash); err != nil || found {
		t.Fatalf("expired state survived the purge: found=%v err=%v", found, err)
	}
	got, found, err := s.ConsumeState(ctx, fresh.Hash)
	if err != nil || !found || got.BusinessID != bid || got.ClientID != "c" || !bytes.Equal(got.Hash, fresh.Hash) || !got.ExpiresAt.Equal(fresh.ExpiresAt) {
		t.Fatalf("ConsumeState = %+v, %v, %v", got, found, err)
	}
	if _, found, _ := s.ConsumeState(ctx, fresh.Hash); found {
		t.Fatal("a state was consumed twice")
	}
}

func conn(bid uuid.UUID, realm string) acctsync.Connection {
	return acctsync.Connection{BusinessID: bid, RealmID: realm, ConnectedBy: "c", ConnectedAt: t0,
		AccessTokenEnc: []byte{1}, RefreshTokenEnc: []byte{2}, AccessExpiresAt: t0.Add(time.Hour)}
}

func ext(id, parent, name string) acctsync.ExternalAccount {
	return acctsync.ExternalAccount{ExternalID: id, ParentExternalID: parent, Name: name, AccountType: "Bank",
		AccountSubType: "Checking", Classification: acctsync.ClassAsset, CurrentBalance: 100, Active: true}
}

func TestImportsAndTrees(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t, "transactions", postgres.Migrations)
	s := postgres.New(db)
	a, b := uuid.New(), uuid.New()
	local := uuid.New()
	imp := acctsync.Import{BusinessID: a, RealmID: "1", At: t0,
		Accounts: []acctsync.ExternalAccount{ext("1", "", "Root"), ext("3", "1", "Zed"), ext("2", "1", "Alpha"), ext("4", "2", "Leaf")},
		Mappings: []acctsync.Mapping{{ExternalID: "2", LocalAccountID: local, Rule: acctsync.RuleSubtype}}}
	if err := s.Connect(ctx, conn(a, "1"), imp); err != nil {
		t.Fatal(err)
	}
	if err := s.Connect(ctx, conn(b, "2"), acctsync.Import{BusinessID: b, RealmID: "2", At: t0, Accounts: []acctsync.ExternalAccount{ext("1", "", "B root")}}); err != nil {
		t.Fatal(err)
	}
	var rootID uuid.UUID
	if err := db.QueryRowContext(ctx, "SELECT id FROM acctsync_accounts WHERE business_id = ? AND external_id = '1'", a).Scan(&rootID); err != nil {
		t.Fatal(err)
	}
	tree, found, err := s.AccountTree(ctx, a, rootID)
	if err != nil || !found {
		t.Fatalf("AccountTree: %v %v", found, err)
	}
	// Children come sorted by name; the mapping is attached.
	if len(tree.Children) != 2 || tree.Children[0].Name != "Alpha" || tree.Children[1].Name != "Zed" ||
		len(tree.Children[0].Children) != 1 || tree.Children[0].Children[0].ExternalID != "4" ||
		tree.Children[0].LocalAccountID == nil || *tree.Children[0].LocalAccountID != local || tree.LocalAccountID != nil {
		t.Fatalf("tree = %+v", tree)
	}
	if _, found, _ := s.AccountTree(ctx, b, rootID); found {
		t.Fatal("another business read the account")
	}

	// A re-import for another realm is refused; for the same one it
	// replaces the chart and keeps surviving ids.
	if ok, err := s.ReplaceAccounts(ctx, acctsync.Import{BusinessID: a, RealmID: "999", At: t0}); err != nil || ok {
		t.Fatalf("ReplaceAccounts for another realm = %v, %v", ok, err)
	}
	ok, err := s.ReplaceAccounts(ctx, acctsync.Import{BusinessID: a, RealmID: "1", At: t0.Add(time.Hour),
		Accounts: []acctsync.ExternalAccount{ext("1", "", "Root renamed")}})
	if err != nil || !ok {
		t.Fatalf("ReplaceAccounts = %v, %v", ok, err)
	}
	tree, _, _ = s.AccountTree(ctx, a, rootID)
	if tree.ID != rootID || tree.Name != "Root renamed" || len(tree.Children) != 0 {
		t.Fatalf("after re-import = %+v", tree)
	}
	var maps int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM acctsync_account_map WHERE business_id = ?", a).Scan(&maps); err != nil || maps != 0 {
		t.Fatalf("mappings after re-import = %d, %v", maps, err)
	}
}

func TestUpdateConnection(t *testing.T) {
	ctx := context.Background()
	s := postgres.New(testkit.DB(t, "transactions", postgres.Migrations))
	bid := uuid.New()
	if _, found, err := s.UpdateConnection(ctx, bid, func(*acctsync.Connection) (bool, error) { return true, nil }); err != nil || found {
		t.Fatalf("UpdateConnection without a connection = %v, %v", found, err)
	}
	if err := s.Connect(ctx, conn(bid, "1"), acctsync.Import{BusinessID: bid, RealmID: "1", At: t0}); err != nil {
		t.Fatal(err)
	}
	c, found, err := s.UpdateConnection(ctx, bid, func(*acctsync.Connection) (bool, error) { return false, nil })
	if err != nil || !found || c.TokenVersion != 1 {
		t.Fatalf("unchanged = %+v, %v, %v", c, found, err)
	}
	c, _, err = s.UpdateConnection(ctx, bid, func(c *acctsync.Connection) (bool, error) {
		c.AccessTokenEnc = []byte{9}
		return true, nil
	})
	stored, _, _ := s.Connection(ctx, bid)
	if err != nil || c.TokenVersion != 2 || stored.TokenVersion != 2 || !bytes.Equal(stored.AccessTokenEnc, []byte{9}) {
		t.Fatalf("changed = %+v / stored %+v, %v", c, stored, err)
	}
}
