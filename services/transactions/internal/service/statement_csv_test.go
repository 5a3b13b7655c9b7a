package service

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/services/transactions/internal/app"
)

// csvReq builds POST .../parse-csv with the statement as the file part.
func csvReq(path, token, content string) *http.Request {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	fw, _ := w.CreateFormFile("file", "statement.csv")
	_, _ = fw.Write([]byte(content))
	_ = w.Close()
	r := httptest.NewRequest("POST", path, &body)
	r.Header.Set("Content-Type", w.FormDataContentType())
	r.Header.Set("Authorization", "Bearer "+token)
	return r
}

func TestParseStatementCSV(t *testing.T) {
	e := newEnv(t)
	s := e.bankSetup("client-a", "US")
	acct := s.account["id"].(string)
	path := base(s.bid) + "/custom-accounts/" + acct + "/parse-csv"
	statement := "Posted Date,Description,Debit,Credit,Reference\n" +
		"03/02/2026,Office rent,1200.00,,R-1\n" +
		"03/05/2026,Client payment,,\"2,500.00\",\n" +
		"03/05/2026,Bank fee,3.50,,\n" +
		"03/05/2026,Bank fee,3.50,,\n"

	d := data(e.Do(csvReq(path, s.tok, statement), 200))
	if d["is_valid"] != true || d["total_transactions_count"].(float64) != 4 || d["invalid_transactions_count"].(float64) != 0 ||
		d["amount_layout"] != "DEBIT_CREDIT" || d["date_format"] != "MM/DD/YYYY" || d["delimiter"] != "," {
		t.Fatalf("preview = %v", d)
	}
	cols := d["columns"].([]any)
	if cols[0].(map[string]any)["role"] != "DATE" || cols[2].(map[string]any)["role"] != "DEBIT" || cols[4].(map[string]any)["role"] != "REFERENCE" {
		t.Fatalf("columns = %v", cols)
	}
	first := d["new_transactions_preview"].([]any)[0].(map[string]any)
	if first["row"].(float64) != 1 || first["amount"].(map[string]any)["parsed"].(float64) != -120000 || first["date"].(map[string]any)["parsed"] != "2026-03-02" {
		t.Fatalf("first preview row = %v", first)
	}
	request := d["new_transactions_request"].(map[string]any)
	txns := request["transactions"].([]any)
	if len(txns) != 4 || txns[0].(map[string]any)["direction"] != "DEBIT" || txns[1].(map[string]any)["direction"] != "CREDIT" ||
		txns[1].(map[string]any)["amount"].(float64) != 250000 || txns[2].(map[string]any)["external_id"] == txns[3].(map[string]any)["external_id"] {
		t.Fatalf("request = %v", request)
	}

	// Importing the preview's request twice creates the transactions once.
	one := e.customTxns(s.bid, s.tok, acct, txns, 201)
	again := data(e.Do(csvReq(path, s.tok, statement), 200))["new_transactions_request"].(map[string]any)["transactions"].([]any)
	two := e.customTxns(s.bid, s.tok, acct, again, 201)
	for i := range one {
		if one[i].(map[string]any)["id"] != two[i].(map[string]any)["id"] {
			t.Fatalf("row %d imported twice: %v / %v", i, one[i], two[i])
		}
	}
	if n := e.countRows("bank_transactions"); n != 4 {
		t.Fatalf("%d bank transactions, want 4", n)
	}

	t.Run("row errors", func(t *testing.T) {
		e := e.with(t)
		d := data(e.Do(csvReq(path, s.tok, "Date;Description;Amount\n31.01.2026;Ok;-1,50\n32.01.2026;Bad;1\n"), 200))
		errs := d["errors"].([]any)
		if d["is_valid"] != false || d["new_transactions_request"] != nil || d["invalid_transactions_count"].(float64) != 1 || len(errs) != 1 ||
			errs[0].(map[string]any)["row"].(float64) != 2 || !strings.Contains(errs[0].(map[string]any)["message"].(string), "date") {
			t.Fatalf("preview = %v", d)
		}
	})

	t.Run("window", func(t *testing.T) {
		e := e.with(t)
		d := data(e.Do(csvReq(path+"?offset=1&limit=2", s.tok, statement), 200))
		rows := d["new_transactions_preview"].([]any)
		if len(rows) != 2 || rows[0].(map[string]any)["row"].(float64) != 2 || d["has_more"] != true || d["next_offset"].(float64) != 3 {
			t.Fatalf("window = %v", d)
		}
	})

	t.Run("refused", func(t *testing.T) {
		e := e.with(t)
		e.DoInvalid(csvReq(path, s.tok, "Name,Total\nx,1\n"), 400, app.EnumInvalidStatementCSV)
		e.DoInvalid(csvReq(base(s.bid)+"/custom-accounts/"+uuid.NewString()+"/parse-csv", s.tok, statement), 404, app.EnumCustomAccountNotFound)
		e.DoInvalid(req("POST", path, s.tok, map[string]any{"file": "x"}), 400, app.EnumInvalidStatementCSV)
	})
}
