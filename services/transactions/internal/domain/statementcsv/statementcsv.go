// Package statementcsv reads a bank statement exported as CSV, in the
// layouts banks commonly use, into the transactions a custom account
// would import: which column is which (guessed from the header), each
// row's date, description, amount in cents and direction, and the rows
// that cannot be read, with their row number and why.
//
// Layouts: one signed amount column (negative is money out), separate
// debit/credit (withdrawal/deposit) columns, or an amount with a type
// column (DR/CR, DEBIT/CREDIT, WITHDRAWAL/DEPOSIT). Dates: YYYY-MM-DD
// (or YYYY/MM/DD), MM/DD/YYYY, DD/MM/YYYY, DD.MM.YYYY and "Jan 2, 2006"
// (also "2 Jan 2006", "02-Jan-2006"); slash dates are read month first
// unless some row's first field is above 12, which makes the whole file
// day first. The delimiter (comma, semicolon or tab) is sniffed from the
// header line; quoted fields and a UTF-8 byte order mark are handled.
//
// Parse streams: it reads one record at a time and keeps only the rows of
// the requested window (Options.Offset, Options.Limit), the counts, and
// one small hash per row up to the window's end (the occurrence index of
// the external ids), so a file of any size is read in bounded memory.
package statementcsv

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Role is what a column holds.
type Role string

// The column roles.
const (
	RoleDate         Role = "DATE"
	RoleDescription  Role = "DESCRIPTION"
	RoleCounterparty Role = "COUNTERPARTY"
	RoleMemo         Role = "MEMO"
	RoleAmount       Role = "AMOUNT"
	RoleDebit        Role = "DEBIT"
	RoleCredit       Role = "CREDIT"
	RoleType         Role = "DIRECTION"
	RoleReference    Role = "REFERENCE"
	RoleExternalID   Role = "EXTERNAL_ID"
	RoleIgnored      Role = "IGNORED"
)

// Amount layouts.
const (
	LayoutSigned      = "SIGNED_AMOUNT"
	LayoutDebitCredit = "DEBIT_CREDIT"
	LayoutAmountType  = "AMOUNT_AND_TYPE"
)

// Directions, as the import spells them.
const (
	Credit = "CREDIT" // money in
	Debit  = "DEBIT"  // money out
)

// Bounds.
const (
	// DefaultLimit and MaxLimit bound the rows of one preview window: the
	// import takes at most 1,000 transactions per call.
	DefaultLimit = 1000
	MaxLimit     = 1000
	// MaxRecordBytes bounds one line of the file (a record spanning lines
	// through a quoted field counts each line).
	MaxRecordBytes = 1 << 20
	// MaxRows bounds the data rows of a file (a 50 MB statement has about
	// 500,000): the occurrence hashes kept up to the window's end stay
	// under ~40 MB whatever the input.
	MaxRows = 2_000_000
	// Field lengths the import accepts (banking's bounds).
	maxDescription  = 1000
	maxCounterparty = 255
	maxReference    = 255
	maxMemo         = 2000
	maxExternalID   = 255
)

// Options choose the window of rows returned and the account the external
// ids are minted for.
type Options struct {
	// AccountKey is mixed into every generated external id (the custom
	// account's id): the same statement imported into two accounts makes
	// distinct transactions, into one account the same ones.
	AccountKey string
	// Offset is the number of data rows skipped before the window.
	Offset int
	// Limit is the window's size (DefaultLimit when 0, at most MaxLimit).
	Limit int
}

// Column is one column of the file and the role guessed for it.
type Column struct {
	Index  int    `json:"index"`
	Header string `json:"header"`
	Role   Role   `json:"role"`
}

// Row is one data row of the window. Row numbers count data rows from 1
// (the header is row 0), as spreadsheets show them less one.
type Row struct {
	Row int
	// Raw text of the cells the preview shows.
	RawDate, RawDescription, RawAmount, RawExternalID, RawReference string
	// Parsed values; meaningful when the matching *OK is true.
	Date          time.Time
	DateOK        bool
	Description   string
	DescriptionOK bool
	// Signed is the amount in cents, negative for money out.
	Signed       int64
	AmountOK     bool
	Counterparty string
	Memo         string
	Reference    string
	// ExternalID is the CSV's own id when it has an id column, else a hash
	// of the account, the date, the signed amount, the description and the
	// row's occurrence among identical rows before it: stable across
	// uploads of the same file, so importing it twice creates nothing new.
	ExternalID string
	// Errors are the reasons the row cannot be imported (empty: valid).
	Errors []string

	dateShape  dateShape
	occurrence int
}

// Valid reports whether the row can be imported.
func (r Row) Valid() bool { return len(r.Errors) == 0 }

// Direction is CREDIT for money in, DEBIT for money out.
func (r Row) Direction() string {
	if r.Signed < 0 {
		return Debit
	}
	return Credit
}

// Amount is the positive amount in cents.
func (r Row) Amount() int64 {
	if r.Signed < 0 {
		return -r.Signed
	}
	return r.Signed
}

// Preview is what Parse read.
type Preview struct {
	Delimiter  string
	DateFormat string // e.g. "MM/DD/YYYY"; "" when no date was read
	Layout     string
	Columns    []Column
	// Rows is the window: at most Limit rows from Offset.
	Rows []Row
	// Total counts the data rows of the whole file; Invalid those that
	// cannot be imported.
	Total, Invalid int
	// HasMore says rows follow the window; NextOffset is where.
	HasMore    bool
	NextOffset int
	Offset     int
	Limit      int
}

// Valid reports whether every row of the file can be imported.
func (p Preview) Valid() bool { return p.Total > 0 && p.Invalid == 0 }

// FileError is a file that cannot be read as a statement at all (no
// header naming a date and an amount, say). Its message is for the user.
type FileError struct{ Msg string }

func (e *FileError) Error() string { return e.Msg }

func fileErr(format string, a ...any) error { return &FileError{Msg: fmt.Sprintf(format, a...)} }

// Parse reads a statement from r. A *FileError is a file that is not a
// readable statement; any other error is r's.
func Parse(r io.Reader, o Options) (Preview, error) {
	if o.Limit <= 0 {
		o.Limit = DefaultLimit
	}
	o.Limit = min(o.Limit, MaxLimit)
	o.Offset = max(o.Offset, 0)
	br := bufio.NewReaderSize(&lineGuard{r: r}, 64<<10)
	if bom, _ := br.Peek(3); bytes.Equal(bom, []byte{0xEF, 0xBB, 0xBF}) {
		_, _ = br.Discard(3)
	}
	head, err := br.Peek(64 << 10)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return Preview{}, unwrapGuard(err)
	}
	delim := sniffDelimiter(head)
	cr := csv.NewReader(br)
	cr.Comma = delim
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	cr.ReuseRecord = true

	p := Preview{Delimiter: string(delim), Offset: o.Offset, Limit: o.Limit}
	var header []string
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return Preview{}, fileErr("the file holds no header row")
		}
		if err != nil {
			return Preview{}, readErr(err)
		}
		if blank(rec) {
			continue
		}
		header = make([]string, len(rec))
		for i, h := range rec {
			header[i] = strings.TrimSpace(strings.TrimPrefix(h, "\uFEFF"))
		}
		break
	}
	m, err := mapColumns(header)
	if err != nil {
		return Preview{}, err
	}
	p.Columns, p.Layout = m.columns, m.layout

	st := scanState{occ: map[uint64]uint32{}}
	windowEnd := o.Offset + o.Limit
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) && !errors.Is(pe.Err, errLineTooLong) {
				// A malformed record (LazyQuotes accepts most): count it as
				// an invalid row and go on.
				p.Total++
				p.Invalid++
				if p.Total > o.Offset && p.Total <= windowEnd {
					p.Rows = append(p.Rows, Row{Row: p.Total, Errors: []string{"is not a well-formed CSV record: " + pe.Err.Error()}})
				}
				continue
			}
			return Preview{}, readErr(err)
		}
		if blank(rec) {
			continue
		}
		p.Total++
		if p.Total > MaxRows {
			return Preview{}, fileErr("the file holds more than %d rows", MaxRows)
		}
		row := m.read(rec)
		row.Row = p.Total
		st.observe(&row)
		if p.Total <= windowEnd {
			row.occurrence = st.occurrence(row.occKey())
		}
		if p.Total > o.Offset && p.Total <= windowEnd {
			p.Rows = append(p.Rows, row)
		}
	}
	if p.Total == 0 {
		return Preview{}, fileErr("the file holds a header but no transactions")
	}
	// The date order is known only now: settle the window's dates and the
	// file's count of invalid rows with it.
	dayFirst := st.dayFirst()
	p.DateFormat = st.format(dayFirst)
	p.Invalid += st.otherInvalid + st.dateInvalid(dayFirst)
	for i := range p.Rows {
		m.finish(&p.Rows[i], dayFirst, o.AccountKey)
	}
	if windowEnd < p.Total {
		p.HasMore, p.NextOffset = true, windowEnd
	}
	return p, nil
}

// readErr turns the reader's error into a file error where it is the
// file's fault.
func readErr(err error) error {
	if errors.Is(err, errLineTooLong) {
		return fileErr("a line is longer than %d bytes: this is not a bank statement", MaxRecordBytes)
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fileErr("the file is not valid CSV: %v", pe)
	}
	return err
}

func unwrapGuard(err error) error {
	if errors.Is(err, errLineTooLong) {
		return readErr(err)
	}
	return err
}

func blank(rec []string) bool {
	for _, f := range rec {
		if strings.TrimSpace(f) != "" {
			return false
		}
	}
	return true
}

var errLineTooLong = errors.New("line too long")

// lineGuard fails a line longer than MaxRecordBytes, so one huge line
// cannot make the CSV reader hold the whole body.
type lineGuard struct {
	r   io.Reader
	run int
}

func (g *lineGuard) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	for _, b := range p[:n] {
		if b == '\n' {
			g.run = 0
			continue
		}
		if g.run++; g.run > MaxRecordBytes {
			return 0, errLineTooLong
		}
	}
	return n, err
}

// sniffDelimiter counts the candidates outside quotes on the first line.
func sniffDelimiter(head []byte) rune {
	counts := map[rune]int{}
	inQuotes := false
	for _, c := range string(head) {
		if c == '"' {
			inQuotes = !inQuotes
			continue
		}
		if inQuotes {
			continue
		}
		if c == '\n' {
			break
		}
		if c == ',' || c == ';' || c == '\t' {
			counts[c]++
		}
	}
	best := ','
	for _, c := range []rune{';', '\t'} {
		if counts[c] > counts[best] {
			best = c
		}
	}
	return best
}

// columnMap is the header's reading.
type columnMap struct {
	columns []Column
	layout  string
	idx     map[Role]int // -1 when absent
}

// headerRoles names the headers of each role, normalised (lower case,
// letters and digits separated by single spaces). Earlier entries win
// when several columns could hold a role.
var headerRoles = []struct {
	role  Role
	names []string
}{
	{RoleDate, []string{"date", "transaction date", "trans date", "txn date", "posted date", "posting date", "post date", "booking date", "value date", "effective date"}},
	{RoleDescription, []string{"description", "transaction description", "details", "transaction details", "narrative", "particulars", "transaction"}},
	{RoleCounterparty, []string{"payee", "payee name", "merchant", "merchant name", "counterparty", "counterparty name", "name", "beneficiary", "payer"}},
	{RoleMemo, []string{"memo", "notes", "note", "comment", "comments"}},
	{RoleAmount, []string{"amount", "transaction amount", "amount usd", "amount cad", "amount eur", "amount gbp", "value", "net amount"}},
	{RoleDebit, []string{"debit", "debits", "debit amount", "withdrawal", "withdrawals", "withdrawal amount", "money out", "paid out", "outflow", "amount debit", "spent"}},
	{RoleCredit, []string{"credit", "credits", "credit amount", "deposit", "deposits", "deposit amount", "money in", "paid in", "inflow", "amount credit", "received"}},
	{RoleType, []string{"type", "transaction type", "dr cr", "cr dr", "debit credit", "credit debit", "direction", "d c", "c d"}},
	{RoleReference, []string{"reference", "reference number", "ref", "ref no", "ref number", "check number", "check no", "check", "cheque number", "cheque no"}},
	{RoleExternalID, []string{"external id", "externalid", "transaction id", "id", "fitid"}},
}

// normalizeHeader lower-cases and keeps letters and digits, single-spaced.
func normalizeHeader(h string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(h), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ")
}

func mapColumns(header []string) (columnMap, error) {
	m := columnMap{idx: map[Role]int{}}
	m.columns = make([]Column, len(header))
	norm := make([]string, len(header))
	for i, h := range header {
		m.columns[i] = Column{Index: i, Header: h, Role: RoleIgnored}
		norm[i] = normalizeHeader(h)
	}
	taken := make([]bool, len(header))
	for _, hr := range headerRoles {
		m.idx[hr.role] = -1
	found:
		for _, name := range hr.names {
			for i, n := range norm {
				if !taken[i] && n == name {
					m.idx[hr.role] = i
					taken[i] = true
					m.columns[i].Role = hr.role
					break found
				}
			}
		}
	}
	// A date column not named exactly: the first header holding "date".
	if m.idx[RoleDate] < 0 {
		for i, n := range norm {
			if !taken[i] && strings.Contains(n, "date") {
				m.idx[RoleDate], taken[i], m.columns[i].Role = i, true, RoleDate
				break
			}
		}
	}
	// An amount column not named exactly ("Amount (USD)" is caught above;
	// "Betrag", no): the first header holding "amount" that is not a
	// balance.
	if m.idx[RoleAmount] < 0 && m.idx[RoleDebit] < 0 {
		for i, n := range norm {
			if !taken[i] && strings.Contains(n, "amount") && !strings.Contains(n, "balance") {
				m.idx[RoleAmount], taken[i], m.columns[i].Role = i, true, RoleAmount
				break
			}
		}
	}
	if m.idx[RoleDate] < 0 {
		return m, fileErr("no date column: the header must name one (Date, Posted Date, Transaction Date...)")
	}
	switch {
	case m.idx[RoleDebit] >= 0 || m.idx[RoleCredit] >= 0:
		if m.idx[RoleDebit] < 0 || m.idx[RoleCredit] < 0 {
			if m.idx[RoleAmount] < 0 {
				return m, fileErr("a debit column needs a credit column (or withdrawal and deposit), or use one signed Amount column")
			}
			// An Amount with a lone Debit/Credit column: the other is a type.
			for _, r := range []Role{RoleDebit, RoleCredit} {
				if i := m.idx[r]; i >= 0 {
					m.columns[i].Role, m.idx[r] = RoleIgnored, -1
				}
			}
			m.layout = LayoutSigned
		} else {
			m.layout = LayoutDebitCredit
			if i := m.idx[RoleAmount]; i >= 0 { // both: the pair wins
				m.columns[i].Role, m.idx[RoleAmount] = RoleIgnored, -1
			}
		}
	case m.idx[RoleAmount] >= 0:
		m.layout = LayoutSigned
	default:
		return m, fileErr("no amount column: the header must name Amount, or Debit and Credit (Withdrawal and Deposit)")
	}
	if m.layout == LayoutSigned && m.idx[RoleType] >= 0 {
		m.layout = LayoutAmountType
	}
	if m.layout != LayoutAmountType && m.idx[RoleType] >= 0 {
		i := m.idx[RoleType]
		m.columns[i].Role, m.idx[RoleType] = RoleIgnored, -1
	}
	if m.idx[RoleDescription] < 0 && m.idx[RoleCounterparty] < 0 && m.idx[RoleMemo] < 0 {
		return m, fileErr("no description column: the header must name one (Description, Payee, Memo...)")
	}
	return m, nil
}

func (m columnMap) cell(rec []string, r Role) string {
	if i := m.idx[r]; i >= 0 && i < len(rec) {
		return strings.TrimSpace(rec[i])
	}
	return ""
}

// read reads a record's cells; the date is settled by finish once the
// file's date order is known.
func (m columnMap) read(rec []string) Row {
	row := Row{
		RawDate: m.cell(rec, RoleDate), RawDescription: m.cell(rec, RoleDescription),
		RawExternalID: m.cell(rec, RoleExternalID), RawReference: m.cell(rec, RoleReference),
		Counterparty: oneLine(m.cell(rec, RoleCounterparty)), Memo: m.cell(rec, RoleMemo),
	}
	row.Reference = oneLine(row.RawReference)
	row.Description = strings.TrimSpace(row.RawDescription)
	if row.Description == "" {
		row.Description = row.Counterparty
	}
	if row.Description == "" {
		row.Description = oneLine(row.Memo)
	}
	row.DescriptionOK = row.Description != ""
	if !row.DescriptionOK {
		row.add("description is empty")
	}
	for _, f := range []struct {
		v, name string
		max     int
		multi   bool
	}{
		{row.Description, "description", maxDescription, true}, {row.Counterparty, "payee", maxCounterparty, false},
		{row.Reference, "reference", maxReference, false}, {row.Memo, "memo", maxMemo, true},
		{row.RawExternalID, "external id", maxExternalID, false},
	} {
		if reason := checkText(f.v, f.max, f.multi); reason != "" {
			row.add(f.name + " " + reason)
			if f.name == "description" {
				row.DescriptionOK = false
			}
		}
	}
	switch m.layout {
	case LayoutDebitCredit:
		debit, credit := m.cell(rec, RoleDebit), m.cell(rec, RoleCredit)
		d, dok, derr := parseAmountCell(debit)
		c, cok, cerr := parseAmountCell(credit)
		switch {
		case derr != "":
			row.RawAmount = debit
			row.add("debit " + derr)
		case cerr != "":
			row.RawAmount = credit
			row.add("credit " + cerr)
		case dok && d != 0 && cok && c != 0:
			row.RawAmount = debit + " / " + credit
			row.add("has both a debit and a credit amount")
		case dok && d != 0:
			row.RawAmount, row.Signed, row.AmountOK = debit, -abs(d), true
		case cok && c != 0:
			row.RawAmount, row.Signed, row.AmountOK = credit, abs(c), true
		default:
			row.RawAmount = debit + credit
			row.add("has no amount (debit and credit are empty or zero)")
		}
	default:
		row.RawAmount = m.cell(rec, RoleAmount)
		v, ok, reason := parseAmountCell(row.RawAmount)
		switch {
		case reason != "":
			row.add("amount " + reason)
		case !ok:
			row.add("amount is empty")
		case v == 0:
			row.add("amount is zero")
		default:
			row.Signed, row.AmountOK = v, true
			if m.layout == LayoutAmountType {
				switch directionWord(m.cell(rec, RoleType)) {
				case Debit:
					row.Signed = -abs(v)
				case Credit:
					row.Signed = abs(v)
				}
			}
		}
	}
	return row
}

func (r *Row) add(msg string) { r.Errors = append(r.Errors, msg) }

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// oneLine folds runs of white space (newlines of a quoted field included)
// into single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func checkText(s string, maxRunes int, multiline bool) string {
	if !utf8.ValidString(s) {
		return "is not valid UTF-8"
	}
	if n := utf8.RuneCountInString(s); n > maxRunes {
		return fmt.Sprintf("is longer than %d characters", maxRunes)
	}
	if strings.IndexFunc(s, func(c rune) bool {
		if multiline && (c == '\n' || c == '\t' || c == '\r') {
			return false
		}
		return unicode.IsControl(c)
	}) >= 0 {
		return "holds control characters"
	}
	return ""
}

// directionWord reads a type column's value ("" when it names no
// direction: a kind such as POS or ACH leaves the amount's sign).
func directionWord(s string) string {
	switch strings.ToUpper(strings.Trim(strings.TrimSpace(s), ".")) {
	case "DR", "D", "DEBIT", "DB", "WITHDRAWAL", "MONEY OUT", "OUT", "PAYMENT", "SENT", "EXPENSE":
		return Debit
	case "CR", "C", "CREDIT", "DEPOSIT", "MONEY IN", "IN", "RECEIVED", "INCOME":
		return Credit
	}
	return ""
}

// groupSeparators drops thousands separators (made once: a Replacer
// builds a table on first use).
var groupSeparators = strings.NewReplacer(",", "", ".", "")

// parseAmountCell reads a money amount into signed cents: "1,234.56",
// "-12.30", "(12.30)", "$12", "12.30-", "12,30" and "1.234,56" (a decimal
// comma), "12.30 CR"/"DR". ok is false for an empty cell; reason says why
// a non-empty cell is not an amount.
func parseAmountCell(s string) (cents int64, ok bool, reason string) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false, ""
	}
	neg := false
	up := strings.ToUpper(s)
	switch {
	case strings.HasSuffix(up, "DR"):
		neg, s = true, strings.TrimSpace(s[:len(s)-2])
	case strings.HasSuffix(up, "CR"):
		s = strings.TrimSpace(s[:len(s)-2])
	}
	if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") {
		neg, s = !neg, s[1:len(s)-1]
	}
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "-") {
		neg, s = !neg, s[1:]
	} else if strings.HasSuffix(s, "-") {
		neg, s = !neg, s[:len(s)-1]
	} else if strings.HasPrefix(s, "+") {
		s = s[1:]
	}
	// Currency signs and codes, and spaces used as thousands separators.
	var b strings.Builder
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9', c == '.', c == ',':
			b.WriteRune(c)
		case c == '-' && b.Len() == 0:
			neg = !neg
		case unicode.IsSpace(c), c == '\'', unicode.Is(unicode.Sc, c), unicode.IsLetter(c):
			if unicode.IsLetter(c) && b.Len() > 0 {
				return 0, false, fmt.Sprintf("%q is not an amount", truncate(s))
			}
		default:
			return 0, false, fmt.Sprintf("%q is not an amount", truncate(s))
		}
	}
	num := b.String()
	if num == "" || strings.Trim(num, ".,") == "" {
		return 0, false, fmt.Sprintf("%q is not an amount", truncate(s))
	}
	// The decimal separator: the last '.' or ',' followed by 1-2 digits to
	// the end, unless the other one is used too (then the last one is).
	lastDot, lastComma := strings.LastIndexByte(num, '.'), strings.LastIndexByte(num, ',')
	dec := -1
	switch {
	case lastDot >= 0 && lastComma >= 0:
		dec = max(lastDot, lastComma)
	case lastDot >= 0:
		if strings.Count(num, ".") == 1 {
			dec = lastDot
		}
	case lastComma >= 0:
		if strings.Count(num, ",") == 1 && len(num)-lastComma-1 <= 2 && len(num)-lastComma-1 >= 1 {
			dec = lastComma
		}
	}
	intPart, frac := num, ""
	if dec >= 0 {
		intPart, frac = num[:dec], num[dec+1:]
	}
	// Thousands separators group by three.
	if groups := strings.FieldsFunc(intPart, func(r rune) bool { return r == ',' || r == '.' }); len(groups) > 1 || strings.ContainsAny(intPart, ".,") {
		if len(groups) == 0 || strings.HasPrefix(intPart, ",") || strings.HasPrefix(intPart, ".") {
			return 0, false, fmt.Sprintf("%q is not an amount", truncate(s))
		}
		for _, g := range groups[1:] {
			if len(g) != 3 {
				return 0, false, fmt.Sprintf("%q is not an amount", truncate(s))
			}
		}
	}
	intPart = groupSeparators.Replace(intPart)
	if strings.ContainsAny(frac, ".,") {
		return 0, false, fmt.Sprintf("%q is not an amount", truncate(s))
	}
	if len(frac) > 2 {
		if strings.Trim(frac[2:], "0") != "" {
			return 0, false, "has more than 2 decimal places"
		}
		frac = frac[:2]
	}
	for len(frac) < 2 {
		frac += "0"
	}
	if intPart == "" {
		intPart = "0"
	}
	whole, err := strconv.ParseInt(intPart, 10, 64)
	if err != nil || whole > (math.MaxInt64-99)/100 {
		return 0, false, "is too large"
	}
	f, _ := strconv.ParseInt(frac, 10, 64)
	v := whole*100 + f
	if neg {
		v = -v
	}
	return v, true, ""
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// scanState is what the scan keeps across rows.
type scanState struct {
	// occ counts rows per occKey up to the window's end.
	occ map[uint64]uint32
	// Slash dates of rows otherwise valid: how many have a first field
	// above 12 (only day first reads them), a second above 12 (only month
	// first does), and the rows invalid for any other reason.
	firstOver12, secondOver12, otherInvalid int
	// Slash-date rows that month first (mfBad) or day first (dfBad)
	// cannot read.
	mfBad, dfBad int
	formats      map[string]bool
}

// observe classifies a row for the file-wide counts.
func (s *scanState) observe(r *Row) {
	d := classifyDate(r.RawDate)
	r.dateShape = d
	if s.formats == nil {
		s.formats = map[string]bool{}
	}
	if d.kind != "" {
		s.formats[d.kind] = true
	}
	if !r.Valid() || d.kind == "" || d.kind == kindInvalid {
		s.otherInvalid++
		return
	}
	if d.kind == kindSlash {
		if d.a > 12 {
			s.firstOver12++
		}
		if d.b > 12 {
			s.secondOver12++
		}
		if _, ok := civil(d.y, d.a, d.b); !ok {
			s.mfBad++
		}
		if _, ok := civil(d.y, d.b, d.a); !ok {
			s.dfBad++
		}
	}
}

// dayFirst: some first field above 12 and none of the second fields
// (both: month first, and the day-first rows are the invalid ones).
func (s *scanState) dayFirst() bool { return s.firstOver12 > 0 && s.secondOver12 == 0 }

// dateInvalid counts the slash-date rows the chosen order cannot read
// (a field above 12 where the month goes, or a day the month lacks).
func (s *scanState) dateInvalid(dayFirst bool) int {
	if dayFirst {
		return s.dfBad
	}
	return s.mfBad
}

func (s *scanState) format(dayFirst bool) string {
	var out []string
	for _, k := range []string{kindISO, kindSlash, kindDot, kindNamed} {
		if !s.formats[k] {
			continue
		}
		switch k {
		case kindISO:
			out = append(out, "YYYY-MM-DD")
		case kindSlash:
			if dayFirst {
				out = append(out, "DD/MM/YYYY")
			} else {
				out = append(out, "MM/DD/YYYY")
			}
		case kindDot:
			out = append(out, "DD.MM.YYYY")
		case kindNamed:
			out = append(out, "MMM D, YYYY")
		}
	}
	return strings.Join(out, ", ")
}

func (s *scanState) occurrence(key uint64) int {
	n := s.occ[key]
	s.occ[key] = n + 1
	return int(n)
}

// occKey identifies identical rows (same date text, amount and
// description) for their occurrence index.
func (r Row) occKey() uint64 {
	h := fnv.New64a()
	_, _ = fmt.Fprintf(h, "%s\x00%d\x00%s", strings.TrimSpace(r.RawDate), r.Signed, r.Description)
	return h.Sum64()
}

// finish settles a window row's date and mints its external id.
func (m columnMap) finish(r *Row, dayFirst bool, accountKey string) {
	t, reason := r.dateShape.resolve(dayFirst)
	if reason != "" {
		r.add("date " + reason)
	} else {
		r.Date, r.DateOK = t, true
	}
	if !r.Valid() {
		return
	}
	if r.RawExternalID != "" {
		r.ExternalID = r.RawExternalID
		return
	}
	sum := sha256.Sum256(fmt.Appendf(nil, "statementcsv/v1\x00%s\x00%s\x00%d\x00%s\x00%d",
		accountKey, r.Date.Format(time.DateOnly), r.Signed, r.Description, r.occurrence))
	r.ExternalID = "csv-" + hex.EncodeToString(sum[:16])
}

// Date shapes.
const (
	kindISO     = "iso"
	kindSlash   = "slash"
	kindDot     = "dot"
	kindNamed   = "named"
	kindInvalid = "invalid"
)

// dateShape is a date cell read as far as it can be before the file's
// order of day and month is known.
type dateShape struct {
	kind    string
	a, b, y int       // slash: first, second field, year
	t       time.Time // every other kind
	reason  string
}

var namedLayouts = []string{"Jan 2, 2006", "Jan 2 2006", "January 2, 2006", "January 2 2006", "2 Jan 2006", "2 January 2006",
	"02-Jan-2006", "2-Jan-2006", "02-Jan-06", "Mon, Jan 2, 2006", "Monday, January 2, 2006", "Jan. 2, 2006"}

func classifyDate(s string) dateShape {
	s = strings.TrimSpace(s)
	if s == "" {
		return dateShape{kind: kindInvalid, reason: "is empty"}
	}
	// A timestamp: its date part.
	if len(s) > 10 && (s[10] == 'T' || s[10] == ' ') && s[4] == '-' {
		s = s[:10]
	}
	bad := dateShape{kind: kindInvalid, reason: fmt.Sprintf("%q is not a date (YYYY-MM-DD, MM/DD/YYYY, DD/MM/YYYY, DD.MM.YYYY or Jan 2, 2006)", truncate(s))}
	if c := s[0]; c < '0' || c > '9' {
		for _, l := range namedLayouts {
			if t, err := time.Parse(l, s); err == nil {
				return named(t, bad)
			}
		}
		return bad
	}
	parts := strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '/' || r == '.' })
	if len(parts) != 3 {
		for _, l := range namedLayouts {
			if t, err := time.Parse(l, s); err == nil {
				return named(t, bad)
			}
		}
		return bad
	}
	nums := make([]int, 3)
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || len(p) > 4 {
			for _, l := range namedLayouts {
				if t, err := time.Parse(l, s); err == nil {
					return named(t, bad)
				}
			}
			return bad
		}
		nums[i] = n
	}
	switch {
	case len(parts[0]) == 4: // YYYY-MM-DD, YYYY/MM/DD
		t, ok := civil(nums[0], nums[1], nums[2])
		if !ok {
			return bad
		}
		return dateShape{kind: kindISO, t: t}
	case len(parts[2]) == 4 || len(parts[2]) == 2:
		y := nums[2]
		if len(parts[2]) == 2 {
			y += 2000
		}
		if strings.Contains(s, ".") { // DD.MM.YYYY
			t, ok := civil(y, nums[1], nums[0])
			if !ok {
				return bad
			}
			return dateShape{kind: kindDot, t: t}
		}
		if y < 1900 || y > 2199 || nums[0] < 1 || nums[1] < 1 || nums[0] > 31 || nums[1] > 31 || (nums[0] > 12 && nums[1] > 12) {
			return bad
		}
		return dateShape{kind: kindSlash, a: nums[0], b: nums[1], y: y}
	}
	return bad
}

func named(t time.Time, bad dateShape) dateShape {
	if t.Year() < 1900 || t.Year() > 2199 {
		return bad
	}
	return dateShape{kind: kindNamed, t: t}
}

// resolve is the date once the order of slash dates is known.
func (d dateShape) resolve(dayFirst bool) (time.Time, string) {
	switch d.kind {
	case kindInvalid, "":
		return time.Time{}, d.reason
	case kindSlash:
		month, day := d.a, d.b
		order := "MM/DD/YYYY"
		if dayFirst {
			month, day, order = d.b, d.a, "DD/MM/YYYY"
		}
		t, ok := civil(d.y, month, day)
		if !ok {
			return time.Time{}, fmt.Sprintf("%02d/%02d/%d is not a date read as %s like the rest of the file", d.a, d.b, d.y, order)
		}
		return t, ""
	}
	if d.t.Year() < 1900 || d.t.Year() > 2199 {
		return time.Time{}, "must be between 1900-01-01 and 2199-12-31"
	}
	return d.t, ""
}

// civil is the date y-m-d when it exists (between 1900 and 2199).
func civil(y, m, d int) (time.Time, bool) {
	if y < 1900 || y > 2199 || m < 1 || m > 12 || d < 1 || d > 31 {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d {
		return time.Time{}, false
	}
	return t, true
}
