-- The summary's read model: a business's trips summed by vehicle, purpose,
-- deleted or not, and day, kept in the transaction of every trip write
-- (Store.InsertTrip, Store.UpdateTrip). deduction is the sum of the
-- business trips' deductions, each rounded once (per trip) at the rate of
-- its day. A (vehicle, purpose, day) key first: the summary's filters are
-- equalities on them, then a date range; an index-only scan. (No CHECK on
-- the sums: PostgreSQL checks the proposed row, a negative delta, before
-- ON CONFLICT turns it into an update.)
CREATE TABLE IF NOT EXISTS trip_days (
    business_id uuid    NOT NULL,
    vehicle_id  uuid    NOT NULL,
    purpose     text    NOT NULL,
    deleted     boolean NOT NULL,
    trip_date   date    NOT NULL,
    miles       bigint  NOT NULL,
    trips       bigint  NOT NULL,
    deduction   bigint  NOT NULL,
    CONSTRAINT trip_days_pkey PRIMARY KEY (business_id, vehicle_id, purpose, deleted, trip_date)
        INCLUDE (miles, trips, deduction)
);

--bun:split

-- Trips written before this table: the rate CASE is postgres.RateCase's
-- (TestTripDaysBackfillRates checks it is the same).
INSERT INTO trip_days (business_id, vehicle_id, purpose, deleted, trip_date, miles, trips, deduction)
SELECT t.business_id, t.vehicle_id, t.purpose, t.deleted_at IS NOT NULL, t.trip_date, sum(t.distance), count(*),
    coalesce(sum((t.distance * (CASE WHEN t.trip_date >= DATE '2026-01-01' THEN 725 WHEN t.trip_date >= DATE '2025-01-01' THEN 700 WHEN t.trip_date >= DATE '2024-01-01' THEN 670 WHEN t.trip_date >= DATE '2023-01-01' THEN 655 WHEN t.trip_date >= DATE '2022-07-01' THEN 625 WHEN t.trip_date >= DATE '2022-01-01' THEN 585 END) + 500) / 1000)
        FILTER (WHERE t.purpose = 'BUSINESS'), 0)
FROM trips AS t
GROUP BY 1, 2, 3, 4, 5
ON CONFLICT DO NOTHING;
