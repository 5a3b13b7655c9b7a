package service

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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

// gatedReader reads r while it can take mu, which a sampler holds to
// pause the upload.
type gatedReader struct {
	r  io.Reader
	mu *sync.Mutex
}

func (g gatedReader) Read(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.r.Read(p)
}

// statementBody writes a multipart body whose file part is a statement of
// rows rows, as a client uploading it would, without holding it anywhere.
func statementBody(rows int) (io.Reader, string) {
	pr, pw := io.Pipe()
	w := multipart.NewWriter(pw)
	go func() {
		fw, err := w.CreateFormFile("file", "big.csv")
		if err == nil {
			bw := bufio.NewWriterSize(fw, 64<<10)
			_, err = bw.WriteString("Date,Description,Amount\n")
			for i := 0; i < rows && err == nil; i++ {
				// 500 distinct rows over and over: what the parser keeps per
				// distinct row (its occurrence count) stays small, so the
				// heap shows what the request holds of the body.
				k := i % 500
				_, err = fmt.Fprintf(bw, "%02d/%02d/2026,Card purchase at a shop with a long name %07d,-%d.%02d\n", k%12+1, k%28+1, k, k+1, k%100)
			}
			if err == nil {
				err = bw.Flush()
			}
		}
		if err == nil {
			err = w.Close()
		}
		pw.CloseWithError(err)
	}()
	return pr, w.FormDataContentType()
}

// A 50 MB statement is read as it arrives: the service's heap never holds
// the body, and a larger one is refused with 413 once the limit is passed.
func TestParseStatementCSVStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("large upload")
	}
	e := newEnv(t)
	s := e.bankSetup("client-a", "US")
	url := e.Svc.URL + base(s.bid) + "/custom-accounts/" + s.account["id"].(string) + "/parse-csv?offset=600000"
	// The sampler below holds the upload while it measures, so that the
	// service is idle (waiting for more of the body) during the collection.
	var sending sync.Mutex
	post := func(rows int) (int, map[string]any) {
		body, ctype := statementBody(rows)
		rq, _ := http.NewRequest("POST", url, gatedReader{body, &sending}) // no length: sent chunked
		rq.Header.Set("Content-Type", ctype)
		rq.Header.Set("Authorization", "Bearer "+s.tok)
		rq.Header.Set("Idempotency-Key", uuid.NewString()) // must not make the service read the body first
		resp, err := http.DefaultClient.Do(rq)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, m
	}

	// What the process holds (the heap a collection marked live) is
	// sampled while the statement is posted: the peak over the baseline is
	// what the request held. Each sample pauses the upload and lets the
	// service drain what is in flight first: a parser still running during
	// the collection has its new (soon dead) objects counted as live, which
	// on a loaded machine once added tens of MiB of garbage to a sample.
	liveSample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	live := func() uint64 {
		sending.Lock()
		defer sending.Unlock()
		time.Sleep(20 * time.Millisecond)
		runtime.GC()
		metrics.Read(liveSample)
		return liveSample[0].Value.Uint64()
	}
	baseline := live()
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			if h := live(); h > peak.Load() {
				peak.Store(h)
			}
		}
	}()
	const rows = 700_000 // about 48 MB
	status, m := post(rows)
	close(stop)
	<-sampled
	if status != 200 {
		t.Fatalf("status %d: %v", status, m)
	}
	d := m["data"].(map[string]any)
	if d["total_transactions_count"].(float64) != rows || d["invalid_transactions_count"].(float64) != 0 || len(d["new_transactions_preview"].([]any)) != 1000 {
		t.Fatalf("preview: total %v invalid %v rows %d", d["total_transactions_count"], d["invalid_transactions_count"], len(d["new_transactions_preview"].([]any)))
	}
	grew := int64(peak.Load()) - int64(baseline)
	t.Logf("the live heap grew by %d KiB at most while the statement was posted", grew>>10)
	// Half the body: a service holding it would have grown by all of it
	// (about 68 MiB when measured so); the rest of the process (the
	// consumers catching up on the shared broker) adds a few MiB.
	if grew > 24<<20 {
		t.Fatalf("the heap grew by %d MiB while a %d-row statement was posted", grew>>20, rows)
	}

	status, m = post(800_000) // about 54 MB
	if status != 413 || m["type"] != "PayloadTooLarge" {
		t.Fatalf("an oversized statement: %d %v", status, m)
	}
	// The refused upload left the service serving.
	e.Do(csvReq(base(s.bid)+"/custom-accounts/"+s.account["id"].(string)+"/parse-csv", s.tok, "Date,Description,Amount\n01/02/2026,x,-1.00\n"), 200)
}
