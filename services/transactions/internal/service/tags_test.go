package service

import (
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/services/transactions/internal/app"
)

func TestBankTransactionTags(t *testing.T) {
	e := newEnv(t)
	s := e.bankSetup("client-a", "US")
	other := e.bankSetup("client-a", "US")
	a, b := s.txn(100, "DEBIT", "2026-02-01"), s.txn(200, "DEBIT", "2026-02-02")
	foreign := other.txn(300, "DEBIT", "2026-02-03")
	path := base(s.bid) + "/bank-transactions/tags"
	tagsOf := func(e *env, id string) []any {
		e.T.Helper()
		return data(e.Do(req("GET", base(s.bid)+"/bank-transactions/"+id, s.tok, nil), 200))["transaction_tags"].([]any)
	}

	body := map[string]any{"transaction_ids": []any{a, b}, "key_values": []any{
		map[string]any{"key": "project", "value": "alpha"}, map[string]any{"key": "dept", "value": "ops"}}}
	m := e.Do(req("POST", path, s.tok, body), 200)
	added := data(m)["tags"].([]any)
	if len(added) != 4 || len(m["tags"].([]any)) != 4 || data(m)["type"] != "Bank_Transaction_Tags" {
		t.Fatalf("answer = %v", m)
	}
	if len(tagsOf(e, a)) != 2 || len(tagsOf(e, b)) != 2 {
		t.Fatal("tags not on the transactions")
	}
	// Tagging again adds nothing and changes no version.
	if again := data(e.Do(req("POST", path, s.tok, body), 200))["tags"].([]any); len(again) != 0 {
		t.Fatalf("re-tagging added %d", len(again))
	}
	if v := e.txnSnapshots(s.bid)[a].Version; v != 2 {
		t.Fatalf("version %d after tagging, want 2", v)
	}

	t.Run("listing filters by the new tag", func(t *testing.T) {
		e := e.with(t)
		list := e.Do(req("GET", base(s.bid)+"/bank-transactions?tag_key=project&tag_values=alpha", s.tok, nil), 200)["data"].([]any)
		if len(list) != 2 {
			t.Fatalf("%d tagged transactions listed", len(list))
		}
	})

	t.Run("delete", func(t *testing.T) {
		e := e.with(t)
		var projectOnA string
		for _, tg := range tagsOf(e, a) {
			if tg.(map[string]any)["key"] == "project" {
				projectOnA = tg.(map[string]any)["id"].(string)
			}
		}
		removed := data(e.Do(req("DELETE", path, s.tok, map[string]any{"tag_ids": []any{projectOnA, uuid.NewString()}}), 200))["tags"].([]any)
		if len(removed) != 1 || removed[0].(map[string]any)["id"] != projectOnA {
			t.Fatalf("removed %v", removed)
		}
		if len(tagsOf(e, a)) != 1 || len(tagsOf(e, b)) != 2 {
			t.Fatal("wrong tags removed")
		}
		if snap := e.txnSnapshots(s.bid)[a]; snap.Version != 3 || len(snap.Tags) != 1 {
			t.Fatalf("snapshot after untagging = %+v", snap)
		}
		// Another business cannot remove this business's tags.
		var dept string
		for _, tg := range tagsOf(e, b) {
			dept = tg.(map[string]any)["id"].(string)
		}
		if r := data(e.Do(req("DELETE", base(other.bid)+"/bank-transactions/tags", s.tok, map[string]any{"tag_ids": []any{dept}}), 200))["tags"].([]any); len(r) != 0 {
			t.Fatal("another business removed a tag")
		}
	})

	t.Run("invalid", func(t *testing.T) {
		for name, tt := range map[string]struct {
			body   any
			status int
			enum   string
		}{
			"another business's transaction": {map[string]any{"transaction_ids": []any{a, foreign}, "key_values": []any{map[string]any{"key": "k", "value": "v"}}}, 404, app.EnumBankTransactionNotFound},
			"no transactions":                {map[string]any{"transaction_ids": []any{}, "key_values": []any{map[string]any{"key": "k", "value": "v"}}}, 400, ""},
			"no tags":                        {map[string]any{"transaction_ids": []any{a}, "key_values": []any{}}, 400, ""},
			"blank key":                      {map[string]any{"transaction_ids": []any{a}, "key_values": []any{map[string]any{"key": " ", "value": "v"}}}, 400, ""},
		} {
			t.Run(name, func(t *testing.T) {
				e := e.with(t)
				before := e.counts()
				e.DoInvalid(req("POST", path, s.tok, tt.body), tt.status, tt.enum)
				if e.counts() != before {
					t.Fatal("a refused request wrote rows")
				}
			})
		}
		e := e.with(t)
		e.DoInvalid(req("DELETE", path, s.tok, map[string]any{"tag_ids": []any{}}), 400, "")
	})
}
