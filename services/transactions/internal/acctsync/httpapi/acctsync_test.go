package httpapi_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/services/transactions/internal/acctsync"
	"github.com/acctsuite/acct/services/transactions/internal/acctsync/qbo/qbofake"
)

// chart is the external chart of the tests: three nested bank accounts,
// a credit card, income, an expense named like a revenue account, an
// account nothing maps to. Balances are exact JSON number texts.
func chart() []json.RawMessage {
	return []json.RawMessage{
		qbofake.Account(qbofake.AccountSpec{ID: "35", Name: "Business Checking", AccountType: "Bank", AccountSubType: "Checking", Classification: "Asset", Balance: "1234.56", AcctNum: "1010"}),
		qbofake.Account(qbofake.AccountSpec{ID: "36", Name: "Tax Savings", AccountType: "Bank", AccountSubType: "Savings", Classification: "Asset", Balance: "0.1", ParentID: "35"}),
		qbofake.Account(qbofake.AccountSpec{ID: "37", Name: "Reserve", AccountType: "Bank", AccountSubType: "Savings", Balance: "90071992547409.93", ParentID: "36"}),
		qbofake.Account(qbofake.AccountSpec{ID: "41", Name: "Visa", AccountType: "Credit Card", AccountSubType: "CreditCard", Classification: "Liability", Balance: "-250.5"}),
		qbofake.Account(qbofake.AccountSpec{ID: "79", Name: "Sales", AccountType: "Income", AccountSubType: "SalesOfProductIncome", Classification: "Revenue", Balance: "1.5E+4"}),
		qbofake.Account(qbofake.AccountSpec{ID: "80", Name: "Sales", AccountType: "Expense", AccountSubType: "OtherMiscellaneousServiceCost", Classification: "Expense", Balance: "12"}),
		qbofake.Account(qbofake.AccountSpec{ID: "90", Name: "Goodwill", AccountType: "Other Asset", AccountSubType: "Goodwill", Classification: "Asset", Balance: "0"}),
	}
}

func TestConnectImportsChartAndServesIt(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.fake.SetAccounts(realm, chart()...)

	// authorize: the provider's URL with a state the server keeps hashed.
	resp, body := e.do(http.MethodPost, "/v1/businesses/"+e.bizA.String()+"/acctsync/authorize", e.platform(clientA))
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("authorize = %d (Cache-Control %q) %s", resp.StatusCode, resp.Header.Get("Cache-Control"), body)
	}
	var params struct {
		Data struct {
			RedirectURL string `json:"redirect_url"`
		} `json:"data"`
	}
	decode(t, body, &params)
	authURL, err := url.Parse(params.Data.RedirectURL)
	if err != nil {
		t.Fatal(err)
	}
	if got := authURL.Scheme + "://" + authURL.Host + authURL.Path; got != e.fake.AuthURL {
		t.Fatalf("redirect_url endpoint = %s, want %s", got, e.fake.AuthURL)
	}
	state := authURL.Query().Get("state")
	var storedHash []byte
	var storedBiz uuid.UUID
	var storedClient string
	var expires time.Time
	if err := e.db.QueryRowContext(context.Background(),
		"SELECT state_hash, business_id, client_id, expires_at FROM acctsync_oauth_states").Scan(&storedHash, &storedBiz, &storedClient, &expires); err != nil {
		t.Fatal(err)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(state)
	if len(state) == 0 || bytes.Contains(storedHash, raw[16:]) || bytes.Contains([]byte(state), storedHash) {
		t.Fatal("the stored state is not a hash of the state's secret")
	}
	if storedBiz != e.bizA || storedClient != clientA || !expires.Equal(e.clock.Now().Add(10*time.Minute)) {
		t.Fatalf("stored state = %s %s %s", storedBiz, storedClient, expires)
	}

	// consent at the provider, then the callback exchanges the code.
	q := e.consent(params.Data.RedirectURL)
	resp, body = e.callback(q)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("callback = %d %s", resp.StatusCode, body)
	}
	var connected struct {
		Data struct {
			Type             string      `json:"type"`
			BusinessID       uuid.UUID   `json:"business_id"`
			RealmID          string      `json:"realm_id"`
			AccountsImported json.Number `json:"accounts_imported"`
		} `json:"data"`
	}
	decode(t, body, &connected)
	if connected.Data.BusinessID != e.bizA || connected.Data.RealmID != realm || connected.Data.AccountsImported != "7" {
		t.Fatalf("callback answer = %s", body)
	}
	if e.fake.TokenCalls("authorization_code") != 1 {
		t.Fatalf("code exchanges = %d", e.fake.TokenCalls("authorization_code"))
	}
	if got := e.fake.Queries(); got != 4 { // 7 accounts in pages of 2
		t.Fatalf("account query pages = %d, want 4", got)
	}
	if n := e.count("acctsync_oauth_states", ""); n != 0 {
		t.Fatalf("%d states left after the callback", n)
	}

	// The tokens are stored sealed: the raw columns never hold them.
	access, refresh := e.fake.LastIssued()
	var accessEnc, refreshEnc []byte
	var realmID string
	if err := e.db.QueryRowContext(context.Background(),
		"SELECT access_token_enc, refresh_token_enc, realm_id FROM acctsync_connections WHERE business_id = ?", e.bizA).
		Scan(&accessEnc, &refreshEnc, &realmID); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(accessEnc, []byte(access)) || bytes.Contains(refreshEnc, []byte(refresh)) ||
		bytes.Contains(accessEnc, []byte(access[3:20])) || bytes.Contains(refreshEnc, []byte(refresh[3:20])) {
		t.Fatal("a raw token column contains the token")
	}
	gotAccess, err := e.cipher.Open(accessEnc, "acctsync/"+e.bizA.String()+"/"+realm+"/access")
	if err != nil || gotAccess != access {
		t.Fatalf("sealed access token opens to %q, %v", gotAccess, err)
	}

	// Balances are exact cents, including one float64 cannot hold.
	wantCents := map[string]int64{"35": 123456, "36": 10, "37": 9007199254740993, "41": -25050, "79": 1500000, "80": 1200, "90": 0}
	for ext, want := range wantCents {
		var got int64
		if err := e.db.QueryRowContext(context.Background(),
			"SELECT current_balance FROM acctsync_accounts WHERE business_id = ? AND external_id = ?", e.bizA, ext).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("account %s balance = %d, want %d", ext, got, want)
		}
	}

	// GET the checking account: the spec's shape, mapping and nested children.
	checking := e.readAccount(e.bizA, e.accountID(e.bizA, "35"))
	if checking.Type != "ApiAcctsyncLedgerAccount" || checking.Name != "Business Checking" || checking.ExternalID != "35" ||
		checking.StableName.Type != "AccountId" || checking.StableName.ID != checking.ID ||
		checking.Normality != "DEBIT" || checking.AccountType.Value != "ASSET" || checking.AccountType.DisplayName != "Asset" ||
		checking.AccountSubtype.Value != "Checking" || checking.Balance != "123456" {
		t.Fatalf("checking = %+v", checking)
	}
	var local struct {
		Type string `json:"type"`
		ID   struct {
			Type string    `json:"type"`
			ID   uuid.UUID `json:"id"`
		} `json:"id"`
		StableName struct {
			StableName string `json:"stable_name"`
		} `json:"stable_name"`
		AccountType struct {
			Value string `json:"value"`
		} `json:"account_type"`
	}
	decode(t, checking.Local, &local)
	if local.Type != "Single_Chart_Account" || local.ID.Type != "AccountId" || local.ID.ID != e.local["BANK_ACCOUNTS"].ID ||
		local.StableName.StableName != "BANK_ACCOUNTS" || local.AccountType.Value != "ASSET" {
		t.Fatalf("local_ledger_account = %s", checking.Local)
	}
	if len(checking.Kids) != 1 || checking.Kids[0].ExternalID != "36" || checking.Kids[0].Balance != "10" ||
		len(checking.Kids[0].Kids) != 1 || checking.Kids[0].Kids[0].ExternalID != "37" ||
		checking.Kids[0].Kids[0].Balance != "9007199254740993" || len(checking.Kids[0].Kids[0].Kids) != 0 {
		t.Fatalf("children = %+v", checking.Kids)
	}
	if string(checking.Kids[0].Kids[0].Local) == "null" {
		t.Fatal("the nested Reserve account should map to BANK_ACCOUNTS too")
	}

	// Mapping and classification of the other accounts.
	tests := []struct {
		ext, normality, typ, localStable string
	}{
		{"41", "CREDIT", "LIABILITY", "CREDIT_CARDS"},
		{"79", "CREDIT", "REVENUE", "SALES"},
		// An expense named "Sales" must not map to the revenue account SALES.
		{"80", "DEBIT", "EXPENSE", "OPERATING_EXPENSES"},
		{"90", "DEBIT", "ASSET", ""},
	}
	for _, tt := range tests {
		a := e.readAccount(e.bizA, e.accountID(e.bizA, tt.ext))
		if a.Normality != tt.normality || a.AccountType.Value != tt.typ || a.Kids == nil || len(a.Kids) != 0 {
			t.Errorf("account %s = %+v", tt.ext, a)
		}
		if tt.localStable == "" {
			if string(a.Local) != "null" {
				t.Errorf("account %s local = %s, want null", tt.ext, a.Local)
			}
			continue
		}
		decode(t, a.Local, &local)
		if local.ID.ID != e.local[tt.localStable].ID {
			t.Errorf("account %s maps to %s, want %s", tt.ext, a.Local, tt.localStable)
		}
	}

	// A mapped local account that has disappeared shows as null.
	e.ledger.remove(e.bizA, e.local["CREDIT_CARDS"].ID)
	if a := e.readAccount(e.bizA, e.accountID(e.bizA, "41")); string(a.Local) != "null" {
		t.Fatalf("local of a deleted local account = %s", a.Local)
	}
}

func TestCallbackRefusesBadStates(t *testing.T) {
	tests := []struct {
		name string
		// prepare returns the callback query to send, after whatever the
		// scenario needs.
		prepare func(e *env) url.Values
		enum    string
	}{
		{
			name: "reused state",
			prepare: func(e *env) url.Values {
				q := e.consent(e.authorize(e.bizA, clientA))
				if resp, body := e.callback(q); resp.StatusCode != http.StatusOK {
					t.Fatalf("first callback = %d %s", resp.StatusCode, body)
				}
				q.Set("code", e.consent(e.authorize(e.bizA, clientA)).Get("code")) // a fresh, valid code
				return q
			},
			enum: acctsync.EnumInvalidState,
		},
		{
			name: "expired state",
			prepare: func(e *env) url.Values {
				q := e.consent(e.authorize(e.bizA, clientA))
				e.clock.Advance(10*time.Minute + time.Second)
				return q
			},
			enum: acctsync.EnumInvalidState,
		},
		{
			name: "state of another business",
			prepare: func(e *env) url.Values {
				q := e.consent(e.authorize(e.bizA, clientA))
				raw, err := base64.RawURLEncoding.DecodeString(q.Get("state"))
				if err != nil {
					t.Fatal(err)
				}
				copy(raw[:16], e.bizB[:])
				q.Set("state", base64.RawURLEncoding.EncodeToString(raw))
				return q
			},
			enum: acctsync.EnumInvalidState,
		},
		{
			name: "unknown state",
			prepare: func(e *env) url.Values {
				q := e.consent(e.authorize(e.bizA, clientA))
				raw := make([]byte, 48)
				copy(raw, e.bizA[:])
				q.Set("state", base64.RawURLEncoding.EncodeToString(raw))
				return q
			},
			enum: acctsync.EnumInvalidState,
		},
		{
			name: "malformed state",
			prepare: func(e *env) url.Values {
				q := e.consent(e.authorize(e.bizA, clientA))
				q.Set("state", "not-a-state")
				return q
			},
			enum: acctsync.EnumInvalidState,
		},
		{
			name: "no state",
			prepare: func(e *env) url.Values {
				q := e.consent(e.authorize(e.bizA, clientA))
				q.Del("state")
				return q
			},
			enum: acctsync.EnumInvalidCallbackRequest,
		},
		{
			name: "repeated state",
			prepare: func(e *env) url.Values {
				q := e.consent(e.authorize(e.bizA, clientA))
				q.Add("state", q.Get("state"))
				return q
			},
			enum: acctsync.EnumInvalidCallbackRequest,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, envOptions{})
			e.fake.SetAccounts(realm, chart()...)
			q := tt.prepare(e)
			exchanges := e.fake.TokenCalls("authorization_code")
			connections := e.count("acctsync_connections", "")
			resp, body := e.callback(q)
			e.expectError(resp, body, http.StatusBadRequest, tt.enum)
			if got := e.fake.TokenCalls("authorization_code"); got != exchanges {
				t.Fatalf("the code was exchanged (%d → %d) despite a bad state", exchanges, got)
			}
			if got := e.count("acctsync_connections", ""); got != connections {
				t.Fatalf("connections %d → %d", connections, got)
			}
		})
	}
}

func TestCallbackStateIsSingleUseUnderRace(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.fake.SetAccounts(realm, chart()...)
	q := e.consent(e.authorize(e.bizA, clientA))
	const n = 6
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Get(e.url + "/v1/acctsync/callback?" + q.Encode())
			if err != nil {
				t.Error(err)
				return
			}
			_ = resp.Body.Close()
			statuses[i] = resp.StatusCode
		}()
	}
	wg.Wait()
	ok, bad := 0, 0
	for _, s := range statuses {
		switch s {
		case http.StatusOK:
			ok++
		case http.StatusBadRequest:
			bad++
		}
	}
	if ok != 1 || bad != n-1 || e.fake.TokenCalls("authorization_code") != 1 {
		t.Fatalf("statuses %v, exchanges %d: want one 200 and %d 400", statuses, e.fake.TokenCalls("authorization_code"), n-1)
	}
}

func TestCallbackProviderAnswers(t *testing.T) {
	t.Run("user declined", func(t *testing.T) {
		e := newEnv(t, envOptions{})
		e.fake.SetDenyConsent(true)
		q := e.consent(e.authorize(e.bizA, clientA))
		if q.Get("error") != "access_denied" {
			t.Fatalf("consent query = %v", q)
		}
		resp, body := e.callback(q)
		eb := e.expectError(resp, body, http.StatusBadRequest, acctsync.EnumAuthorizationDenied)
		if eb.Meta["provider_error"] != "access_denied" {
			t.Fatalf("meta = %v", eb.Meta)
		}
		if e.count("acctsync_oauth_states", "") != 0 {
			t.Fatal("a declined authorization left its state usable")
		}
	})
	t.Run("code rejected", func(t *testing.T) {
		e := newEnv(t, envOptions{})
		q := e.consent(e.authorize(e.bizA, clientA))
		q.Set("code", q.Get("code")+"x")
		resp, body := e.callback(q)
		e.expectError(resp, body, http.StatusBadRequest, acctsync.EnumAuthorizationRejected)
		if e.count("acctsync_connections", "") != 0 {
			t.Fatal("a connection was stored")
		}
	})
	t.Run("missing code and bad realm", func(t *testing.T) {
		e := newEnv(t, envOptions{})
		q := e.consent(e.authorize(e.bizA, clientA))
		q.Del("code")
		q.Set("realmId", "../../admin")
		resp, body := e.callback(q)
		eb := e.expectError(resp, body, http.StatusBadRequest, acctsync.EnumInvalidCallbackRequest)
		fields, _ := eb.Meta["fields"].(map[string]any)
		if fields["code"] == nil || fields["realmId"] == nil {
			t.Fatalf("meta.fields = %v", eb.Meta)
		}
	})
	t.Run("our client credentials rejected", func(t *testing.T) {
		e := newEnv(t, envOptions{clientSecret: "stale-secret"})
		resp, body := e.callback(e.consent(e.authorize(e.bizA, clientA)))
		eb := e.expectError(resp, body, http.StatusServiceUnavailable, "")
		if !strings.Contains(eb.Description, "client credentials") {
			t.Fatalf("description = %q", eb.Description)
		}
	})
}

func TestProviderDownWritesNothing(t *testing.T) {
	tables := []string{"acctsync_connections", "acctsync_accounts", "acctsync_account_map"}
	t.Run("token endpoint down", func(t *testing.T) {
		e := newEnv(t, envOptions{})
		e.fake.SetAccounts(realm, chart()...)
		q := e.consent(e.authorize(e.bizA, clientA))
		e.fake.SetDown(true)
		resp, body := e.callback(q)
		eb := e.expectError(resp, body, http.StatusServiceUnavailable, "")
		if !strings.Contains(eb.Description, "unavailable") {
			t.Fatalf("description = %q", eb.Description)
		}
		for _, tb := range tables {
			if n := e.count(tb, ""); n != 0 {
				t.Errorf("%s has %d rows", tb, n)
			}
		}
	})
	t.Run("account query fails on the second page", func(t *testing.T) {
		e := newEnv(t, envOptions{})
		e.fake.SetAccounts(realm, chart()...)
		e.fake.FailQueriesFrom(1 + testPageSize)
		resp, body := e.callback(e.consent(e.authorize(e.bizA, clientA)))
		eb := e.expectError(resp, body, http.StatusServiceUnavailable, "")
		if !strings.Contains(eb.Description, "nothing was imported") {
			t.Fatalf("description = %q", eb.Description)
		}
		if e.fake.Queries() != 1 {
			t.Fatalf("pages served = %d, want 1 before the failure", e.fake.Queries())
		}
		for _, tb := range tables {
			if n := e.count(tb, ""); n != 0 {
				t.Errorf("%s has %d rows", tb, n)
			}
		}
	})
	t.Run("unreadable balance", func(t *testing.T) {
		e := newEnv(t, envOptions{})
		e.fake.SetAccounts(realm, append(chart(), qbofake.Account(qbofake.AccountSpec{
			ID: "99", Name: "Odd", AccountType: "Bank", Classification: "Asset", Balance: "0.005"}))...)
		resp, body := e.callback(e.consent(e.authorize(e.bizA, clientA)))
		e.expectError(resp, body, http.StatusServiceUnavailable, "")
		for _, tb := range tables {
			if n := e.count(tb, ""); n != 0 {
				t.Errorf("%s has %d rows", tb, n)
			}
		}
	})
	t.Run("sync failure keeps the previous import", func(t *testing.T) {
		e := newEnv(t, envOptions{})
		e.fake.SetAccounts(realm, chart()...)
		e.connect(e.bizA, clientA)
		e.fake.SetAccounts(realm, qbofake.Account(qbofake.AccountSpec{
			ID: "35", Name: "Business Checking", AccountType: "Bank", AccountSubType: "Checking", Classification: "Asset", Balance: "1"}))
		e.fake.FailQueriesFrom(1)
		if _, err := e.svc.SyncAccounts(context.Background(), e.bizA); err == nil {
			t.Fatal("sync succeeded against a failing provider")
		}
		if n := e.count("acctsync_accounts", "business_id = ?", e.bizA); n != 7 {
			t.Fatalf("accounts after a failed sync = %d, want 7", n)
		}
		if a := e.readAccount(e.bizA, e.accountID(e.bizA, "35")); a.Balance != "123456" {
			t.Fatalf("balance after a failed sync = %s", a.Balance)
		}
	})
}

func TestExpiredAccessTokenIsRefreshed(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.fake.SetAccounts(realm, chart()...)
	e.connect(e.bizA, clientA)
	ctx := context.Background()
	type stored struct {
		access, refresh []byte
		version         int64
		expires         time.Time
	}
	read := func() stored {
		var s stored
		if err := e.db.QueryRowContext(ctx,
			"SELECT access_token_enc, refresh_token_enc, token_version, access_expires_at FROM acctsync_connections WHERE business_id = ?", e.bizA).
			Scan(&s.access, &s.refresh, &s.version, &s.expires); err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := read()
	if !before.expires.Equal(e.clock.Now().Add(time.Hour)) {
		t.Fatalf("access expires at %s, want now+1h", before.expires)
	}

	// Within its lifetime the stored token is used as is.
	if _, err := e.svc.SyncAccounts(ctx, e.bizA); err != nil {
		t.Fatal(err)
	}
	if e.fake.TokenCalls("refresh_token") != 0 || read().version != before.version {
		t.Fatal("a valid access token was refreshed")
	}

	// Two hours later it has expired, for us and for the provider.
	e.clock.Advance(2 * time.Hour)
	e.fake.SetAccounts(realm, qbofake.Account(qbofake.AccountSpec{
		ID: "35", Name: "Business Checking", AccountType: "Bank", AccountSubType: "Checking", Classification: "Asset", Balance: "99.99"}))
	got, err := e.svc.SyncAccounts(ctx, e.bizA)
	if err != nil {
		t.Fatal(err)
	}
	if got.AccountsImported != 1 || e.fake.TokenCalls("refresh_token") != 1 {
		t.Fatalf("sync = %+v, refreshes %d", got, e.fake.TokenCalls("refresh_token"))
	}
	after := read()
	access, refresh := e.fake.LastIssued()
	if after.version != before.version+1 || bytes.Equal(after.access, before.access) || bytes.Equal(after.refresh, before.refresh) ||
		!after.expires.Equal(e.clock.Now().Add(time.Hour)) {
		t.Fatalf("stored pair not replaced: version %d → %d", before.version, after.version)
	}
	if bytes.Contains(after.access, []byte(access)) || bytes.Contains(after.refresh, []byte(refresh)) {
		t.Fatal("the refreshed pair is stored in clear")
	}
	opened, err := e.cipher.Open(after.refresh, "acctsync/"+e.bizA.String()+"/"+realm+"/refresh")
	if err != nil || opened != refresh {
		t.Fatalf("stored refresh token = %q, %v; want the rotated one", opened, err)
	}
	if a := e.readAccount(e.bizA, e.accountID(e.bizA, "35")); a.Balance != "9999" || len(a.Kids) != 0 {
		t.Fatalf("after sync: %+v", a)
	}
	if n := e.count("acctsync_accounts", "business_id = ?", e.bizA); n != 1 {
		t.Fatalf("accounts the provider no longer reports were kept: %d", n)
	}

	// A token the provider revoked early is refreshed once and retried.
	e.fake.RevokeAccessTokens()
	if _, err := e.svc.SyncAccounts(ctx, e.bizA); err != nil {
		t.Fatal(err)
	}
	if e.fake.TokenCalls("refresh_token") != 2 {
		t.Fatalf("refreshes = %d, want 2", e.fake.TokenCalls("refresh_token"))
	}

	// Disconnected at the provider: the connection must be authorized again.
	e.fake.RevokeTokens()
	_, err = e.svc.SyncAccounts(ctx, e.bizA)
	if !isAppErr(err, http.StatusConflict, acctsync.EnumReauthorizationNeeded) {
		t.Fatalf("sync after revocation: %v", err)
	}
}

func TestReconnectKeepsAccountIDs(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.fake.SetAccounts(realm, chart()...)
	e.connect(e.bizA, clientA)
	checking, goodwill := e.accountID(e.bizA, "35"), e.accountID(e.bizA, "90")
	e.fake.SetAccounts(realm, chart()[:6]...) // Goodwill is gone
	e.connect(e.bizA, clientA)
	if got := e.accountID(e.bizA, "35"); got != checking {
		t.Fatalf("checking id changed %s → %s", checking, got)
	}
	resp, body := e.getAccount(e.bizA, goodwill.String(), e.platform(clientA))
	e.expectError(resp, body, http.StatusNotFound, acctsync.EnumAccountNotFound)

	// Reconnecting to another company replaces the chart entirely.
	e.fake.SetConsentRealm("4620816365000000")
	e.fake.SetAccounts("4620816365000000", qbofake.Account(qbofake.AccountSpec{
		ID: "35", Name: "Other Co Checking", AccountType: "Bank", Classification: "Asset", Balance: "5"}))
	e.connect(e.bizA, clientA)
	if n := e.count("acctsync_accounts", "business_id = ?", e.bizA); n != 1 {
		t.Fatalf("accounts after switching company = %d, want 1", n)
	}
	if got := e.accountID(e.bizA, "35"); got == checking {
		t.Fatal("an account of another company kept the old company's account id")
	}
}

func TestSuccessRedirect(t *testing.T) {
	e := newEnv(t, envOptions{successURL: "https://app.example.test/settings?tab=accounting"})
	e.fake.SetAccounts(realm, chart()...)
	resp, body := e.callback(e.consent(e.authorize(e.bizA, clientA)))
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("callback = %d %s", resp.StatusCode, body)
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	q := loc.Query()
	if loc.Host != "app.example.test" || q.Get("tab") != "accounting" || q.Get("acctsync") != "connected" ||
		q.Get("business_id") != e.bizA.String() || q.Get("realm_id") != realm || q.Get("code") != "" {
		t.Fatalf("Location = %s", loc)
	}
	if resp.Header.Get("Referrer-Policy") != "no-referrer" {
		t.Fatalf("Referrer-Policy = %q", resp.Header.Get("Referrer-Policy"))
	}
}

func TestLedgerAccountRequestRules(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.fake.SetAccounts(realm, chart()...)
	e.connect(e.bizA, clientA)
	id := e.accountID(e.bizA, "35").String()
	tests := []struct {
		name   string
		bid    uuid.UUID
		path   string // account id segment
		token  string
		status int
		enum   string
	}{
		{"owner's platform token", e.bizA, id, e.platform(clientA), http.StatusOK, ""},
		{"business token", e.bizA, id, e.tokens.Business(t, clientA, e.bizA), http.StatusOK, ""},
		{"another client's token", e.bizA, id, e.platform(clientB), http.StatusNotFound, "BusinessNotFound"},
		{"another business's token", e.bizA, id, e.tokens.Business(t, clientB, e.bizB), http.StatusNotFound, "BusinessNotFound"},
		{"account of another business", e.bizB, id, e.platform(clientB), http.StatusNotFound, acctsync.EnumAccountNotFound},
		{"unknown account", e.bizA, uuid.NewString(), e.platform(clientA), http.StatusNotFound, acctsync.EnumAccountNotFound},
		{"bad account uuid", e.bizA, "not-a-uuid", e.platform(clientA), http.StatusBadRequest, "InvalidParameters"},
		{"no token", e.bizA, id, "", http.StatusUnauthorized, "MissingToken"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := e.getAccount(tt.bid, tt.path, tt.token)
			if tt.status == http.StatusOK {
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("status = %d %s", resp.StatusCode, body)
				}
				return
			}
			e.expectError(resp, body, tt.status, tt.enum)
		})
	}
}

func TestAuthorizeRequestRules(t *testing.T) {
	e := newEnv(t, envOptions{})
	tests := []struct {
		name   string
		bid    string
		token  string
		status int
		enum   string
	}{
		{"another client's business", e.bizA.String(), e.platform(clientB), http.StatusNotFound, "BusinessNotFound"},
		{"bad business uuid", "nope", e.platform(clientA), http.StatusBadRequest, "InvalidParameters"},
		{"no token", e.bizA.String(), "", http.StatusUnauthorized, "MissingToken"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := e.do(http.MethodPost, "/v1/businesses/"+tt.bid+"/acctsync/authorize", tt.token)
			e.expectError(resp, body, tt.status, tt.enum)
			if n := e.count("acctsync_oauth_states", ""); n != 0 {
				t.Fatalf("%d states stored", n)
			}
		})
	}
	// A business token may start its own business's connection.
	resp, body := e.do(http.MethodPost, "/v1/businesses/"+e.bizB.String()+"/acctsync/authorize", e.tokens.Business(t, clientB, e.bizB))
	if resp.StatusCode != http.StatusOK || e.count("acctsync_oauth_states", "business_id = ? AND client_id = ?", e.bizB, clientB) != 1 {
		t.Fatalf("business token authorize = %d %s", resp.StatusCode, body)
	}
}

func TestNotConfigured(t *testing.T) {
	e := newEnv(t, envOptions{noProvider: true})
	resp, body := e.do(http.MethodPost, "/v1/businesses/"+e.bizA.String()+"/acctsync/authorize", e.platform(clientA))
	eb := e.expectError(resp, body, http.StatusServiceUnavailable, "")
	if !strings.Contains(eb.Description, "not configured") {
		t.Fatalf("description = %q", eb.Description)
	}
	resp, body = e.callback(url.Values{"code": {"c"}, "state": {"s"}, "realmId": {realm}})
	e.expectError(resp, body, http.StatusServiceUnavailable, "")
	if _, err := e.svc.SyncAccounts(context.Background(), e.bizA); !isAppErr(err, http.StatusServiceUnavailable, "") {
		t.Fatalf("sync: %v", err)
	}
	resp, body = e.getAccount(e.bizA, uuid.NewString(), e.platform(clientA))
	e.expectError(resp, body, http.StatusNotFound, acctsync.EnumAccountNotFound)
}

func TestSyncWithoutConnection(t *testing.T) {
	e := newEnv(t, envOptions{})
	if _, err := e.svc.SyncAccounts(context.Background(), e.bizA); !isAppErr(err, http.StatusNotFound, acctsync.EnumNotConnected) {
		t.Fatalf("sync: %v", err)
	}
}

func TestConcurrentSyncsRefreshOnce(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.fake.SetAccounts(realm, chart()...)
	e.connect(e.bizA, clientA)
	e.clock.Advance(90 * time.Minute)
	const n = 4
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = e.svc.SyncAccounts(context.Background(), e.bizA)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("sync %d: %v", i, err)
		}
	}
	// The provider rotates refresh tokens: a second refresh with the same
	// token would have failed, so one refresh is the only way all succeed.
	if got := e.fake.TokenCalls("refresh_token"); got != 1 {
		t.Fatalf("refreshes = %d, want 1", got)
	}
	var version int64
	if err := e.db.QueryRowContext(context.Background(),
		"SELECT token_version FROM acctsync_connections WHERE business_id = ?", e.bizA).Scan(&version); err != nil {
		t.Fatal(err)
	}
	if version != 2 {
		t.Fatalf("token_version = %d, want 2", version)
	}
	if n := e.count("acctsync_accounts", "business_id = ?", e.bizA); n != 7 {
		t.Fatalf("accounts = %d, want 7", n)
	}
}
