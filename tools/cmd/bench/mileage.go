package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/acctsuite/acct/tools/internal/stack"
)

// The mileage benchmark: GET /mileage/summary over a business
// with many trips, through the gateway, against the raw GROUP BY over the
// trips (rawSummarySQL, the bench's own text) in the same run.
const (
	mileageSamples    = 200 // gateway requests per filter
	mileageRawSamples = 40  // raw GROUP BY runs per filter, interleaved with them
)

// mileageRates are the IRS rates (tenths of a cent per mile) from their
// first day, newest first: the bench's own copy, so the read model it
// loads is computed independently of the service (the totals check
// compares the two).
var mileageRates = []struct {
	from time.Time
	rate int64
}{
	{time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), 725},
	{time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), 700},
	{time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), 670},
	{time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC), 655},
	{time.Date(2022, 7, 1, 0, 0, 0, 0, time.UTC), 625},
	{time.Date(2022, 1, 1, 0, 0, 0, 0, time.UTC), 585},
}

// mileageTrip is trip i of the bench: one of two vehicles, one of three
// purposes, a day of 2022–2026 (1,826 days), 0.01 to 500 miles, one in
// twenty deleted; each drawn from its own bits of a hash of i, so every
// (vehicle, purpose, day) occurs: the read model is as large as such a
// business makes it.
func mileageTrip(i int) (vehicle int, purpose string, day time.Time, hundredths int64, deleted bool) {
	h := uint64(i+1) * 0x9E3779B97F4A7C15
	h ^= h >> 29
	h *= 0xBF58476D1CE4E5B9
	h ^= h >> 32
	purposes := []string{"BUSINESS", "PERSONAL", "UNREVIEWED"}
	return int(h & 1), purposes[(h>>1)%3], time.Date(2022, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, int((h>>8)%1826)),
		int64(1 + (h>>24)%50000), (h>>48)%20 == 0
}

// mileageDeduction is a business trip's deduction in cents, rounded half
// up once.
func mileageDeduction(day time.Time, hundredths int64) int64 {
	for _, r := range mileageRates {
		if !day.Before(r.from) {
			return (hundredths*r.rate + 500) / 1000
		}
	}
	panic("mileage bench: a trip before 2022")
}

// mileageFilter is one measured summary request: its query, and the same
// filter for the raw GROUP BY.
type mileageFilter struct {
	name     string
	query    url.Values
	vehicles []uuid.UUID
	purposes []string
	from, to string // YYYY-MM-DD, "" for no bound
}

// rawSummarySQL is the summary of f as one GROUP BY year, month over the
// trips themselves (search_path mileage): the bench's own SQL, written
// from the API's definition, not the service's query, so that it checks
// the service's read model independently (deduction rounded half up once
// per business trip, at the rate of the trip's day).
func rawSummarySQL(bid uuid.UUID, f mileageFilter) string {
	var rate strings.Builder
	rate.WriteString("CASE")
	for _, r := range mileageRates {
		fmt.Fprintf(&rate, " WHEN trip_date >= DATE '%s' THEN %d", r.from.Format(time.DateOnly), r.rate)
	}
	rate.WriteString(" END")
	where := []string{fmt.Sprintf("business_id = '%s'", bid), "deleted_at IS NULL"}
	if len(f.vehicles) > 0 {
		ids := make([]string, len(f.vehicles))
		for i, v := range f.vehicles {
			ids[i] = "'" + v.String() + "'"
		}
		where = append(where, "vehicle_id IN ("+strings.Join(ids, ", ")+")")
	}
	if len(f.purposes) > 0 {
		where = append(where, "purpose IN ('"+strings.Join(f.purposes, "', '")+"')")
	}
	if f.from != "" {
		where = append(where, "trip_date >= DATE '"+f.from+"'")
	}
	if f.to != "" {
		where = append(where, "trip_date <= DATE '"+f.to+"'")
	}
	return `SELECT extract(year FROM trip_date)::int AS year, extract(month FROM trip_date)::int AS month,
	coalesce(sum(distance), 0)::bigint AS miles,
	coalesce(sum(distance) FILTER (WHERE purpose = 'BUSINESS'), 0)::bigint AS business_miles,
	coalesce(sum(distance) FILTER (WHERE purpose = 'PERSONAL'), 0)::bigint AS personal_miles,
	coalesce(sum(distance) FILTER (WHERE purpose = 'UNREVIEWED'), 0)::bigint AS uncategorized_miles,
	count(*) AS trips,
	count(*) FILTER (WHERE purpose = 'BUSINESS') AS business_trips,
	count(*) FILTER (WHERE purpose = 'PERSONAL') AS personal_trips,
	count(*) FILTER (WHERE purpose = 'UNREVIEWED') AS uncategorized_trips,
	coalesce(sum((distance * (` + rate.String() + `) + 500) / 1000) FILTER (WHERE purpose = 'BUSINESS'), 0)::bigint AS estimated_deduction
FROM trips WHERE ` + strings.Join(where, " AND ") + ` GROUP BY 1, 2 ORDER BY 1, 2`
}

// runMileage loads trips trips into one business (its two vehicles made
// through the gateway; the trips and the trip_days read model by COPY,
// not timed), then times GET /mileage/summary with filters through the
// gateway against the raw GROUP BY over the trips, interleaved, and checks
// that both give the same figures month by month.
func runMileage(ctx context.Context, st *stack.Stack, token string, trips int) (string, []result, error) {
	db, err := pgx.Connect(ctx, st.DatabaseURL)
	if err != nil {
		return "", nil, fmt.Errorf("connect to the suite's database: %w", err)
	}
	defer db.Close(context.Background())
	// The raw query's own connection, on the service's schema.
	cfg, err := pgx.ParseConfig(st.DatabaseURL)
	if err != nil {
		return "", nil, err
	}
	cfg.RuntimeParams["search_path"] = "mileage"
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	raw, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return "", nil, err
	}
	defer raw.Close(context.Background())
	b := &txbench{st: st, token: token, db: db, client: &http.Client{Timeout: 60 * time.Second}}
	fmt.Printf("\n== mileage (load average at start: %s) ==\n", loadAverage())
	biz, err := b.newBusiness(ctx, "bench-mileage")
	if err != nil {
		return "", nil, err
	}
	base := "/v1/businesses/" + biz + "/mileage"
	var vehicles [2]uuid.UUID
	for v := range vehicles {
		var out struct {
			Data struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		body := []byte(fmt.Sprintf(`{"make_and_model":"Bench %d","external_id":"bench-vehicle-%d"}`, v, v))
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
			if _, err = b.do(ctx, http.MethodPost, base+"/vehicles", body, &out); err == nil {
				break
			}
			if time.Now().After(deadline) { // the business reaches mileage through acct.business.v1
				return "", nil, fmt.Errorf("vehicle %d: %w", v, err)
			}
		}
		vehicles[v] = uuid.MustParse(out.Data.ID)
	}
	bid := uuid.MustParse(biz)

	// The trips and the read model the service keeps from them.
	type dayKey struct {
		vehicle int
		purpose string
		deleted bool
		day     time.Time
	}
	type daySums struct{ miles, trips, deduction int64 }
	days := map[dayKey]*daySums{}
	now := time.Now().UTC()
	start := time.Now()
	i := 0
	n, err := db.CopyFrom(ctx, pgx.Identifier{"mileage", "trips"},
		[]string{"business_id", "id", "vehicle_id", "distance", "trip_date", "purpose", "description", "version", "created_at", "updated_at", "deleted_at"},
		pgx.CopyFromFunc(func() ([]any, error) {
			if i == trips {
				return nil, nil
			}
			v, purpose, day, miles, deleted := mileageTrip(i)
			i++
			k := dayKey{v, purpose, deleted, day}
			s := days[k]
			if s == nil {
				s = &daySums{}
				days[k] = s
			}
			s.miles += miles
			s.trips++
			if purpose == "BUSINESS" {
				s.deduction += mileageDeduction(day, miles)
			}
			var deletedAt any
			if deleted {
				deletedAt = now
			}
			return []any{bid, uuid.Must(uuid.NewV7()), vehicles[v], miles, day, purpose, fmt.Sprintf("bench trip %d", i), 1, now, now, deletedAt}, nil
		}))
	if err != nil {
		return "", nil, fmt.Errorf("COPY trips: %w", err)
	}
	rows := make([][]any, 0, len(days))
	for k, s := range days {
		rows = append(rows, []any{bid, vehicles[k.vehicle], k.purpose, k.deleted, k.day, s.miles, s.trips, s.deduction})
	}
	if _, err := db.CopyFrom(ctx, pgx.Identifier{"mileage", "trip_days"},
		[]string{"business_id", "vehicle_id", "purpose", "deleted", "trip_date", "miles", "trips", "deduction"}, pgx.CopyFromRows(rows)); err != nil {
		return "", nil, fmt.Errorf("COPY trip_days: %w", err)
	}
	// Both tables vacuumed (the visibility map of index-only scans) and
	// analyzed, as autovacuum would leave them.
	for _, t := range []string{"mileage.trips", "mileage.trip_days"} {
		if _, err := db.Exec(ctx, "VACUUM (ANALYZE) "+t); err != nil {
			return "", nil, fmt.Errorf("vacuum %s: %w", t, err)
		}
	}
	fmt.Printf("  %d trips (2 vehicles, 3 purposes, 2022–2026, 1 in 20 deleted) and their %d trip_days rows loaded by COPY in %s (not timed)\n",
		n, len(rows), time.Since(start).Round(time.Millisecond))
	if err := b.settle(ctx); err != nil {
		return "", nil, err
	}

	filters := []mileageFilter{
		{name: "one vehicle, BUSINESS, year=2024", query: url.Values{"vehicle_ids": {vehicles[0].String()}, "purpose": {"BUSINESS"}, "year": {"2024"}},
			vehicles: vehicles[:1], purposes: []string{"BUSINESS"}, from: "2024-01-01", to: "2024-12-31"},
		{name: "one vehicle, BUSINESS+PERSONAL, 2023-03-15..2025-09-30", query: url.Values{"vehicle_ids": {vehicles[1].String()},
			"purpose": {"BUSINESS", "PERSONAL"}, "start_date": {"2023-03-15"}, "end_date": {"2025-09-30"}},
			vehicles: vehicles[1:2], purposes: []string{"BUSINESS", "PERSONAL"}, from: "2023-03-15", to: "2025-09-30"},
		{name: "no filter (all 5 years)", query: url.Values{}},
	}
	var sum strings.Builder
	var res []result
	for _, f := range filters {
		line, r, err := b.benchSummary(ctx, raw, bid, base, f, int(n))
		if err != nil {
			return "", res, fmt.Errorf("%s: %w", f.name, err)
		}
		sum.WriteString(line)
		res = append(res, r)
	}
	return sum.String(), res, nil
}

// summaryMonth is one month's figures in hundredths of a mile, trips and
// cents.
type summaryMonth struct {
	miles, business, personal, uncategorized, trips, bTrips, pTrips, uTrips, deduction int64
}

// benchSummary measures one filter: warm-up, then mileageSamples gateway
// requests with a raw GROUP BY run after every fifth, and the figures
// compared.
func (b *txbench) benchSummary(ctx context.Context, raw *pgx.Conn, bid uuid.UUID, base string, f mileageFilter, trips int) (string, result, error) {
	sql := rawSummarySQL(bid, f)
	path := base + "/summary?" + f.query.Encode()
	var err error
	var api, rawTimes []time.Duration
	var fromAPI, fromSQL map[[2]int]summaryMonth
	get := func() (time.Duration, error) {
		var out summaryResponse
		t0 := time.Now()
		if _, err := b.do(ctx, http.MethodGet, path, nil, &out); err != nil {
			return 0, err
		}
		el := time.Since(t0)
		fromAPI, err = out.months()
		return el, err
	}
	query := func() (time.Duration, error) {
		t0 := time.Now()
		fromSQL, err = rawMonths(ctx, raw, sql)
		return time.Since(t0), err
	}
	for range 5 { // warm-up: connections, caches
		if _, err := get(); err != nil {
			return "", result{}, err
		}
		if _, err := query(); err != nil {
			return "", result{}, err
		}
	}
	for k := range mileageSamples {
		el, err := get()
		if err != nil {
			return "", result{}, err
		}
		api = append(api, el)
		if k%(mileageSamples/mileageRawSamples) == 0 {
			el, err := query()
			if err != nil {
				return "", result{}, err
			}
			rawTimes = append(rawTimes, el)
		}
	}
	if len(fromSQL) == 0 {
		return "", result{}, fmt.Errorf("the raw GROUP BY found no trips")
	}
	var total summaryMonth
	for m, want := range fromSQL {
		if got := fromAPI[m]; got != want {
			return "", result{}, fmt.Errorf("%d-%02d: the summary says %+v, the raw GROUP BY %+v", m[0], m[1], got, want)
		}
		total.miles += want.miles
		total.trips += want.trips
		total.deduction += want.deduction
	}
	if len(fromAPI) != len(fromSQL) {
		return "", result{}, fmt.Errorf("the summary has %d months, the raw GROUP BY %d", len(fromAPI), len(fromSQL))
	}
	a, z := percentiles(api), percentiles(rawTimes)
	ratio := float64(a.p50) / float64(z.p50)
	ok := a.p50 <= 20*time.Millisecond && ratio <= 0.2
	fmt.Printf("  %s: gateway p50 %s p99 %s (%d requests); raw GROUP BY p50 %s p99 %s (%d runs); %d months, %d trips, %s miles, %d cents both ways\n",
		f.name, a.p50, a.p99, len(api), z.p50, z.p99, len(rawTimes), len(fromSQL), total.trips, milesString(total.miles), total.deduction)
	res := result{Part: "mileage", Section: "summary",
		Name: fmt.Sprintf("GET /mileage/summary p50, %s (%s of %s trips)", f.name, formatNumber(float64(total.trips)), formatNumber(float64(trips))),
		Unit: "ms", Value: durationMS(a.p50), Note: "p99 " + msText(a.p99) + "; raw p99 " + msText(z.p99),
		Baseline: "raw GROUP BY over the trips, p50", BaselineValue: durationMS(z.p50),
		Target: []bound{absolute(atMost, 20), ratioAtMost(0.2)}}
	return fmt.Sprintf("  summary (%s): gateway p50 %s p99 %s; raw GROUP BY p50 %s; ratio %.3f (target p50 <= 20ms and <= 0.2×) %s\n",
		f.name, a.p50, a.p99, z.p50, ratio, verdict(ok)), res, nil
}

// rawMonths runs the raw summary query and reads its months.
func rawMonths(ctx context.Context, db *pgx.Conn, sql string) (map[[2]int]summaryMonth, error) {
	rows, err := db.Query(ctx, sql)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[[2]int]summaryMonth{}
	for rows.Next() {
		var y, m int
		var s summaryMonth
		if err := rows.Scan(&y, &m, &s.miles, &s.business, &s.personal, &s.uncategorized, &s.trips, &s.bTrips, &s.pTrips, &s.uTrips, &s.deduction); err != nil {
			return nil, err
		}
		out[[2]int{y, m}] = s
	}
	return out, rows.Err()
}

// summaryTotals are the figures of a year or a month in the API.
type summaryTotals struct {
	Miles              string `json:"miles"`
	BusinessMiles      string `json:"business_miles"`
	PersonalMiles      string `json:"personal_miles"`
	UncategorizedMiles string `json:"uncategorized_miles"`
	EstimatedDeduction int64  `json:"estimated_deduction"`
	Trips              int64  `json:"trips"`
	BusinessTrips      int64  `json:"business_trips"`
	PersonalTrips      int64  `json:"personal_trips"`
	UncategorizedTrips int64  `json:"uncategorized_trips"`
}

type summaryResponse struct {
	Data struct {
		Years []struct {
			Year int `json:"year"`
			summaryTotals
			Months []struct {
				Month int `json:"month"`
				summaryTotals
			} `json:"months"`
		} `json:"years"`
	} `json:"data"`
}

// months are the response's months in hundredths; each year's totals are
// checked against its months.
func (r summaryResponse) months() (map[[2]int]summaryMonth, error) {
	out := map[[2]int]summaryMonth{}
	for _, y := range r.Data.Years {
		yt, err := y.summaryTotals.parse()
		if err != nil {
			return nil, err
		}
		var sum summaryMonth
		for _, m := range y.Months {
			mt, err := m.summaryTotals.parse()
			if err != nil {
				return nil, err
			}
			out[[2]int{y.Year, m.Month}] = mt
			sum.miles, sum.business, sum.personal, sum.uncategorized = sum.miles+mt.miles, sum.business+mt.business, sum.personal+mt.personal, sum.uncategorized+mt.uncategorized
			sum.trips, sum.bTrips, sum.pTrips, sum.uTrips = sum.trips+mt.trips, sum.bTrips+mt.bTrips, sum.pTrips+mt.pTrips, sum.uTrips+mt.uTrips
			sum.deduction += mt.deduction
		}
		if sum != yt {
			return nil, fmt.Errorf("year %d: totals %+v, its months add up to %+v", y.Year, yt, sum)
		}
	}
	return out, nil
}

func (t summaryTotals) parse() (summaryMonth, error) {
	var s summaryMonth
	for _, p := range []struct {
		in  string
		out *int64
	}{{t.Miles, &s.miles}, {t.BusinessMiles, &s.business}, {t.PersonalMiles, &s.personal}, {t.UncategorizedMiles, &s.uncategorized}} {
		v, err := parseHundredths(p.in)
		if err != nil {
			return s, err
		}
		*p.out = v
	}
	s.trips, s.bTrips, s.pTrips, s.uTrips, s.deduction = t.Trips, t.BusinessTrips, t.PersonalTrips, t.UncategorizedTrips, t.EstimatedDeduction
	return s, nil
}

// parseHundredths reads a decimal string of miles ("12", "0.3", "7.25")
// as hundredths.
func parseHundredths(s string) (int64, error) {
	whole, frac, _ := strings.Cut(s, ".")
	if len(frac) > 2 {
		return 0, fmt.Errorf("miles %q: more than 2 decimals", s)
	}
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("miles %q: %w", s, err)
	}
	var f int64
	if frac != "" {
		if f, err = strconv.ParseInt((frac + "0")[:2], 10, 64); err != nil {
			return 0, fmt.Errorf("miles %q: %w", s, err)
		}
	}
	return w*100 + f, nil
}

func milesString(h int64) string {
	return fmt.Sprintf("%d.%02d", h/100, h%100)
}
