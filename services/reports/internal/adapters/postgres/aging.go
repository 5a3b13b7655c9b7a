package postgres

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/acctsuite/acct/services/reports/internal/app"
	"github.com/acctsuite/acct/services/reports/internal/domain"
)

var _ app.AgingStore = (*Store)(nil)

// AgingWriteOffs is the invoice of each of the write-offs ids that is
// known (aging_write_offs).
func (s *Store) AgingWriteOffs(ctx context.Context, bid uuid.UUID, ids []string) (map[string]string, error) {
	out := map[string]string{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []struct {
		WriteOffID string `bun:"write_off_id"`
		InvoiceID  string `bun:"invoice_id"`
	}
	err := s.conn(ctx).NewRaw(`SELECT write_off_id, invoice_id FROM aging_write_offs WHERE business_id = ? AND write_off_id = ANY(?::text[])`,
		bid, pgdialect.Array(ids)).Scan(ctx, &rows)
	for _, r := range rows {
		out[r.WriteOffID] = r.InvoiceID
	}
	return out, wrap("read write-offs", err)
}

type agingMoveKey struct {
	origin domain.AgingOrigin
	holder domain.AgingHolder
	day    string
}

// AddAgingMoves adds moves, merged per origin, holder and day first (ON
// CONFLICT may touch a row once per statement).
func (s *Store) AddAgingMoves(ctx context.Context, bid uuid.UUID, moves []domain.AgingMove) error {
	sums := map[agingMoveKey]int64{}
	var order []agingMoveKey
	for _, m := range moves {
		k := agingMoveKey{m.Origin, m.Holder, m.Day.Format(domain.DateLayout)}
		if _, ok := sums[k]; !ok {
			order = append(order, k)
		}
		sums[k] += m.Amount
	}
	n := len(order)
	sides, otypes, oids, htypes, hids, days := make([]string, 0, n), make([]string, 0, n), make([]string, 0, n), make([]string, 0, n), make([]string, 0, n), make([]string, 0, n)
	kinds, amounts := make([]int64, 0, n), make([]int64, 0, n)
	for _, k := range order {
		if sums[k] == 0 {
			continue
		}
		sides, kinds, otypes, oids = append(sides, k.holder.Side), append(kinds, int64(k.origin.Kind)), append(otypes, k.origin.Type), append(oids, k.origin.ID)
		htypes, hids, days, amounts = append(htypes, k.holder.Type), append(hids, k.holder.ID), append(days, k.day), append(amounts, sums[k])
	}
	// In chunks: a statement stays well within the driver's read timeout
	// whatever a rebuild adds.
	for len(sides) > agingChunk {
		if err := s.addAgingMoves(ctx, bid, sides[:agingChunk], kinds[:agingChunk], otypes[:agingChunk], oids[:agingChunk],
			htypes[:agingChunk], hids[:agingChunk], days[:agingChunk], amounts[:agingChunk]); err != nil {
			return err
		}
		sides, kinds, otypes, oids = sides[agingChunk:], kinds[agingChunk:], otypes[agingChunk:], oids[agingChunk:]
		htypes, hids, days, amounts = htypes[agingChunk:], hids[agingChunk:], days[agingChunk:], amounts[agingChunk:]
	}
	if len(sides) == 0 {
		return nil
	}
	return s.addAgingMoves(ctx, bid, sides, kinds, otypes, oids, htypes, hids, days, amounts)
}

// agingDocTypes are the holders that age by a due date ("side:type").
var agingDocTypes = func() []string {
	var out []string
	for _, s := range domain.AgingSides {
		out = append(out, s.Side+":"+s.DocType)
	}
	return out
}()

// agingChunk is how many moves or holders one statement writes.
const agingChunk = 5000

func (s *Store) addAgingMoves(ctx context.Context, bid uuid.UUID, sides []string, kinds []int64, otypes, oids, htypes, hids, days []string, amounts []int64) error {
	_, err := s.conn(ctx).NewRaw(`INSERT INTO aging_moves AS m (business_id, side, origin_kind, origin_type, origin_id, holder_type, holder_id, day, amount)
		SELECT ?, t.side, t.kind::smallint, t.otype, t.oid, t.htype, t.hid, t.day, t.amount
		FROM unnest(?::text[], ?::bigint[], ?::text[], ?::text[], ?::text[], ?::text[], ?::date[], ?::bigint[]) AS t(side, kind, otype, oid, htype, hid, day, amount)
		ON CONFLICT (business_id, side, origin_kind, origin_type, origin_id, holder_type, holder_id, day)
		DO UPDATE SET amount = m.amount + EXCLUDED.amount`,
		bid, pgdialect.Array(sides), pgdialect.Array(kinds), pgdialect.Array(otypes), pgdialect.Array(oids),
		pgdialect.Array(htypes), pgdialect.Array(hids), pgdialect.Array(days), pgdialect.Array(amounts)).Exec(ctx)
	return wrap("add aging moves", err)
}

type holderRow struct {
	Side       string `bun:"side"`
	HolderType string `bun:"holder_type"`
	HolderID   string `bun:"holder_id"`
}

// ReplaceAgingOrigin makes moves the moves of origin (what it had before
// is removed) and returns the holders it had.
func (s *Store) ReplaceAgingOrigin(ctx context.Context, bid uuid.UUID, origin domain.AgingOrigin, moves []domain.AgingMove) ([]domain.AgingHolder, error) {
	var old []holderRow
	if err := s.conn(ctx).NewRaw(`DELETE FROM aging_moves WHERE business_id = ? AND origin_kind = ? AND origin_type = ? AND origin_id = ?
		RETURNING side, holder_type, holder_id`, bid, origin.Kind, origin.Type, origin.ID).Scan(ctx, &old); err != nil {
		return nil, wrap("clear aging moves", err)
	}
	if err := s.AddAgingMoves(ctx, bid, moves); err != nil {
		return nil, err
	}
	return holders(old), nil
}

// MoveAgingOrigin puts every move of origin on holder to and returns the
// holders they were on.
func (s *Store) MoveAgingOrigin(ctx context.Context, bid uuid.UUID, origin domain.AgingOrigin, to domain.AgingHolder) ([]domain.AgingHolder, error) {
	var old []holderRow
	if err := s.conn(ctx).NewRaw(`SELECT DISTINCT side, holder_type, holder_id FROM aging_moves
		WHERE business_id = ? AND origin_kind = ? AND origin_type = ? AND origin_id = ?`, bid, origin.Kind, origin.Type, origin.ID).Scan(ctx, &old); err != nil {
		return nil, wrap("read aging moves", err)
	}
	_, err := s.conn(ctx).NewRaw(`UPDATE aging_moves SET holder_type = ?, holder_id = ?
		WHERE business_id = ? AND side = ? AND origin_kind = ? AND origin_type = ? AND origin_id = ?`,
		to.Type, to.ID, bid, to.Side, origin.Kind, origin.Type, origin.ID).Exec(ctx)
	return holders(old), wrap("move aging moves", err)
}

func holders(rows []holderRow) []domain.AgingHolder {
	out := make([]domain.AgingHolder, len(rows))
	for i, r := range rows {
		out[i] = domain.AgingHolder{Side: r.Side, Type: r.HolderType, ID: r.HolderID}
	}
	return out
}

// UpsertAgingWriteOff keeps version of write-off id (of invoice) unless
// the same or a newer one is there; it reports whether it changed the
// write-off's invoice.
func (s *Store) UpsertAgingWriteOff(ctx context.Context, bid uuid.UUID, id, invoice string, version int64) (bool, error) {
	var changed []bool
	err := s.conn(ctx).NewRaw(`WITH old AS (SELECT invoice_id FROM aging_write_offs WHERE business_id = ? AND write_off_id = ?)
		INSERT INTO aging_write_offs AS w (business_id, write_off_id, invoice_id, version) VALUES (?, ?, ?, ?)
		ON CONFLICT (business_id, write_off_id) DO UPDATE SET invoice_id = EXCLUDED.invoice_id, version = EXCLUDED.version
		WHERE w.version < EXCLUDED.version
		RETURNING NOT EXISTS (SELECT 1 FROM old WHERE old.invoice_id = w.invoice_id)`,
		bid, id, bid, id, invoice, version).Scan(ctx, &changed)
	return len(changed) > 0 && changed[0], wrap("upsert write-off", err)
}

// UpsertAgingDocument keeps version of document d unless the same or a
// newer one is there, and copies its party and dates to its holder.
func (s *Store) UpsertAgingDocument(ctx context.Context, bid uuid.UUID, d app.AgingDocumentSnapshot) error {
	var due *string
	if d.Due != nil {
		v := d.Due.Format(domain.DateLayout)
		due = &v
	}
	res, err := s.conn(ctx).NewRaw(`INSERT INTO aging_documents AS d (business_id, doc_type, doc_id, party_id, doc_day, due_day, version)
		VALUES (?, ?, ?, ?, ?::date, ?::date, ?)
		ON CONFLICT (business_id, doc_type, doc_id) DO UPDATE SET party_id = EXCLUDED.party_id, doc_day = EXCLUDED.doc_day,
		  due_day = EXCLUDED.due_day, version = EXCLUDED.version
		WHERE d.version < EXCLUDED.version`,
		bid, d.Side.DocType, d.ID, d.Party, d.Day.Format(domain.DateLayout), due, d.Version).Exec(ctx)
	if err != nil {
		return wrap("upsert aging document", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return wrap("upsert aging document", err)
	}
	_, err = s.conn(ctx).NewRaw(`UPDATE aging_holders SET party_id = ?, age_day = COALESCE(?::date, ?::date)
		WHERE business_id = ? AND side = ? AND holder_type = ? AND holder_id = ?`,
		d.Party, due, d.Day.Format(domain.DateLayout), bid, d.Side.Side, d.Side.DocType, d.ID).Exec(ctx)
	return wrap("update aging holder", err)
}

// UpsertAgingParty keeps version of party id's display name unless the
// same or a newer one is there.
func (s *Store) UpsertAgingParty(ctx context.Context, bid uuid.UUID, partyType string, id uuid.UUID, name string, version int64) error {
	_, err := s.conn(ctx).NewRaw(`INSERT INTO aging_parties AS p (business_id, party_type, party_id, name, version) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (business_id, party_type, party_id) DO UPDATE SET name = EXCLUDED.name, version = EXCLUDED.version
		WHERE p.version < EXCLUDED.version`, bid, partyType, id, name, version).Exec(ctx)
	return wrap("upsert aging party", err)
}

// RefreshAgingHolders recomputes the holders hs of business bid from
// their moves (in chunks): a holder without a non-zero move is removed.
func (s *Store) RefreshAgingHolders(ctx context.Context, bid uuid.UUID, hs []domain.AgingHolder) error {
	db := s.conn(ctx)
	for len(hs) > agingChunk {
		if err := s.RefreshAgingHolders(ctx, bid, hs[:agingChunk]); err != nil {
			return err
		}
		hs = hs[agingChunk:]
	}
	if len(hs) == 0 {
		return nil
	}
	seen := map[domain.AgingHolder]bool{}
	var sides, types, ids []string
	for _, h := range hs {
		if !seen[h] {
			seen[h] = true
			sides, types, ids = append(sides, h.Side), append(types, h.Type), append(ids, h.ID)
		}
	}
	// Each holder's moves by its index (LATERAL: never a scan of every
	// move of the business).
	_, err := db.NewRaw(`WITH k AS (SELECT * FROM unnest(?::text[], ?::text[], ?::text[]) AS k(side, holder_type, holder_id)),
		a AS (
			SELECT k.side, k.holder_type, k.holder_id, x.first_day, x.last_day, x.open FROM k CROSS JOIN LATERAL (
				SELECT min(m.day) AS first_day, max(m.day) AS last_day, sum(m.amount) AS open FROM aging_moves m
				WHERE m.business_id = ? AND m.side = k.side AND m.holder_type = k.holder_type AND m.holder_id = k.holder_id AND m.amount <> 0
			) x
		),
		gone AS (
			DELETE FROM aging_holders h USING a
			WHERE h.business_id = ? AND h.side = a.side AND h.holder_type = a.holder_type AND h.holder_id = a.holder_id AND a.first_day IS NULL
		)
		INSERT INTO aging_holders AS h (business_id, side, holder_type, holder_id, first_day, last_day, open, party_id, age_day)
		SELECT ?, a.side, a.holder_type, a.holder_id, a.first_day, a.last_day, a.open, d.party_id,
		       CASE WHEN a.side || ':' || a.holder_type = ANY(?::text[]) THEN COALESCE(d.due_day, d.doc_day, a.first_day) END
		FROM a LEFT JOIN aging_documents d ON d.business_id = ? AND d.doc_type = a.holder_type AND d.doc_id = a.holder_id
		WHERE a.first_day IS NOT NULL
		ON CONFLICT (business_id, side, holder_type, holder_id) DO UPDATE SET first_day = EXCLUDED.first_day, last_day = EXCLUDED.last_day,
		  open = EXCLUDED.open, party_id = EXCLUDED.party_id, age_day = EXCLUDED.age_day`,
		pgdialect.Array(sides), pgdialect.Array(types), pgdialect.Array(ids), bid, bid, bid, pgdialect.Array(agingDocTypes), bid).Exec(ctx)
	return wrap("refresh aging holders", err)
}

// PaymentAllocations is what payment id of kind paid, per document and
// day (cash_allocations: its newest snapshot; none once deleted).
func (s *Store) PaymentAllocations(ctx context.Context, bid uuid.UUID, kind string, id uuid.UUID) ([]domain.Allocation, error) {
	var rows []allocationRow
	err := s.conn(ctx).NewRaw(`SELECT payment_type, payment_id, source_type, source_id, day, amount FROM cash_allocations
		WHERE business_id = ? AND payment_type = ? AND payment_id = ? ORDER BY ordinal`, bid, kind, id).Scan(ctx, &rows)
	out := make([]domain.Allocation, len(rows))
	for i, r := range rows {
		out[i] = r.allocation()
	}
	return out, wrap("read payment allocations", err)
}

// AllPaymentAllocations is PaymentAllocations of every payment of
// business bid, by payment.
func (s *Store) AllPaymentAllocations(ctx context.Context, bid uuid.UUID) ([]app.PaymentAllocations, error) {
	var rows []allocationRow
	if err := s.conn(ctx).NewRaw(`SELECT payment_type, payment_id, source_type, source_id, day, amount FROM cash_allocations
		WHERE business_id = ? ORDER BY payment_type, payment_id, ordinal`, bid).Scan(ctx, &rows); err != nil {
		return nil, wrap("read allocations", err)
	}
	var out []app.PaymentAllocations
	for _, r := range rows {
		if n := len(out); n == 0 || out[n-1].Kind != r.PaymentType || out[n-1].ID != r.PaymentID {
			out = append(out, app.PaymentAllocations{Kind: r.PaymentType, ID: r.PaymentID})
		}
		out[len(out)-1].Allocs = append(out[len(out)-1].Allocs, r.allocation())
	}
	return out, nil
}

type allocationRow struct {
	PaymentType string    `bun:"payment_type"`
	PaymentID   uuid.UUID `bun:"payment_id"`
	SourceType  string    `bun:"source_type"`
	SourceID    string    `bun:"source_id"`
	Day         time.Time `bun:"day"`
	Amount      int64     `bun:"amount"`
}

func (r allocationRow) allocation() domain.Allocation {
	return domain.Allocation{Doc: domain.DocKey{SourceType: r.SourceType, SourceID: r.SourceID}, Payment: r.PaymentID, Day: r.Day.UTC(), Amount: r.Amount}
}

// agingOpen is the open amount of every holder of side s of business bid
// on day on, with its party and age day (a subquery: ? business, side,
// on, on, business, side, on, on): the holders open today whose last move
// is on or before the day as they are, those with a move after it by
// their moves up to it.
const agingOpen = `
	SELECT holder_type, holder_id, party_id, age_day, open AS amount
	FROM aging_holders WHERE business_id = ? AND side = ? AND open <> 0 AND last_day <= ?::date
	UNION ALL
	SELECT h.holder_type, h.holder_id, h.party_id, h.age_day,
	       (SELECT sum(m.amount) FROM aging_moves m
	        WHERE m.business_id = h.business_id AND m.side = h.side AND m.holder_type = h.holder_type AND m.holder_id = h.holder_id AND m.day <= ?::date)
	FROM aging_holders h WHERE h.business_id = ? AND h.side = ? AND h.last_day > ?::date AND h.first_day <= ?::date`

// AgingLines are the open amounts of side s of business bid on day on,
// summed per party and bucket (domain.AgingBucketStarts; what is on no
// document, whose age day is null, in domain.BucketOther), with the
// parties' names. The holders open today whose last move is on or before
// the day (nearly all of them for a recent day) are summed in one ordered
// pass over the party index, a row per party with a sum per bucket; the
// few with a move after the day by their moves up to it; then both are
// added.
func (s *Store) AgingLines(ctx context.Context, bid uuid.UUID, side domain.AgingSide, on time.Time) ([]domain.AgingLine, error) {
	day := on.Format(domain.DateLayout)
	st := domain.AgingBucketStarts(on)
	b0, b1, b2 := st[0].Format(domain.DateLayout), st[1].Format(domain.DateLayout), st[2].Format(domain.DateLayout)
	// One sum per bucket, over rows with age_day and amount columns.
	sums := func(amount string) string {
		return `coalesce(sum(` + amount + `) FILTER (WHERE age_day IS NULL), 0)::bigint AS other,
			coalesce(sum(` + amount + `) FILTER (WHERE age_day >= ?0::date), 0)::bigint AS b_current,
			coalesce(sum(` + amount + `) FILTER (WHERE age_day >= ?1::date AND age_day < ?0::date), 0)::bigint AS b_31,
			coalesce(sum(` + amount + `) FILTER (WHERE age_day >= ?2::date AND age_day < ?1::date), 0)::bigint AS b_61,
			coalesce(sum(` + amount + `) FILTER (WHERE age_day < ?2::date), 0)::bigint AS b_91`
	}
	type partyRow struct {
		PartyID *uuid.UUID `bun:"party_id"`
		Name    *string    `bun:"name"`
		Other   int64      `bun:"other"`
		Current int64      `bun:"b_current"`
		D31     int64      `bun:"b_31"`
		D61     int64      `bun:"b_61"`
		D91     int64      `bun:"b_91"`
	}
	var today, spanning []partyRow
	// Without JIT: compiling these plans (their cost grows with the
	// holders) takes longer than running them; without parallel workers:
	// the ordered pass is cheaper than gathering partial sums on a
	// machine the service shares.
	err := s.conn(ctx).RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, "SET LOCAL jit = off; SET LOCAL max_parallel_workers_per_gather = 0"); err != nil {
			return err
		}
		if err := tx.NewRaw(`WITH g AS (
				SELECT party_id, `+sums("open")+`
				FROM aging_holders WHERE business_id = ?3 AND side = ?4 AND open <> 0 AND last_day <= ?5::date
				GROUP BY party_id
			)
			SELECT g.*, p.name FROM g LEFT JOIN aging_parties p ON p.business_id = ?3 AND p.party_type = ?6 AND p.party_id = g.party_id`,
			b0, b1, b2, bid, side.Side, day, side.PartyType).Scan(ctx, &today); err != nil {
			return err
		}
		return tx.NewRaw(`WITH h AS (
				SELECT h.party_id, h.age_day, (SELECT sum(m.amount) FROM aging_moves m
					WHERE m.business_id = h.business_id AND m.side = h.side AND m.holder_type = h.holder_type
					  AND m.holder_id = h.holder_id AND m.day <= ?5::date) AS amount
				FROM aging_holders h WHERE h.business_id = ?3 AND h.side = ?4 AND h.last_day > ?5::date AND h.first_day <= ?5::date
			), g AS (
				SELECT party_id, `+sums("amount")+` FROM h GROUP BY party_id
			)
			SELECT g.*, p.name FROM g LEFT JOIN aging_parties p ON p.business_id = ?3 AND p.party_type = ?6 AND p.party_id = g.party_id`,
			b0, b1, b2, bid, side.Side, day, side.PartyType).Scan(ctx, &spanning)
	})
	if err != nil {
		return nil, wrap("read aging", err)
	}
	var out []domain.AgingLine
	for _, r := range append(today, spanning...) {
		for _, b := range []struct {
			bucket int
			amount int64
		}{{domain.BucketOther, r.Other}, {domain.BucketCurrent, r.Current}, {domain.Bucket31To60, r.D31},
			{domain.Bucket61To90, r.D61}, {domain.BucketOver90, r.D91}} {
			if b.amount != 0 {
				out = append(out, domain.AgingLine{Party: r.PartyID, PartyName: r.Name, Bucket: b.bucket, Amount: b.amount})
			}
		}
	}
	return out, nil
}

// AgingDocuments are the documents of side s of business bid open on day
// on (their open amount not zero), by id.
func (s *Store) AgingDocuments(ctx context.Context, bid uuid.UUID, side domain.AgingSide, on time.Time) ([]domain.AgingDocument, error) {
	day := on.Format(domain.DateLayout)
	var rows []struct {
		HolderID string     `bun:"holder_id"`
		PartyID  *uuid.UUID `bun:"party_id"`
		Due      time.Time  `bun:"due"`
		Amount   int64      `bun:"amount"`
	}
	err := s.conn(ctx).NewRaw(`SELECT holder_id, party_id, age_day AS due, amount::bigint AS amount FROM (`+agingOpen+`) o
		WHERE holder_type = ? AND amount <> 0 ORDER BY holder_id`,
		bid, side.Side, day, day, bid, side.Side, day, day, side.DocType).Scan(ctx, &rows)
	if err != nil {
		return nil, wrap("read aging documents", err)
	}
	out := make([]domain.AgingDocument, len(rows))
	for i, r := range rows {
		out[i] = domain.AgingDocument{ID: r.HolderID, Party: r.PartyID, Due: r.Due.UTC(), Amount: r.Amount}
	}
	return out, nil
}
