-- Vehicles of each business. Text fields are NULL when empty (never '').
-- Vehicles are deleted softly (deleted_at). At most one primary vehicle per
-- business (the partial unique index); archived and deleted ones never are.
CREATE TABLE IF NOT EXISTS vehicles (
    business_id    uuid        NOT NULL,
    id             uuid        NOT NULL,
    external_id    text,
    make_and_model text        NOT NULL,
    year           integer,
    license_plate  text,
    vin            text,
    description    text,
    is_primary     boolean     NOT NULL DEFAULT false,
    version        integer     NOT NULL,
    created_at     timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL,
    archived_at    timestamptz,
    deleted_at     timestamptz,
    CONSTRAINT vehicles_pkey PRIMARY KEY (business_id, id),
    CONSTRAINT vehicles_primary_check CHECK (NOT is_primary OR (archived_at IS NULL AND deleted_at IS NULL)),
    CONSTRAINT vehicles_vin_check CHECK (vin IS NULL OR length(vin) = 17),
    CONSTRAINT vehicles_version_check CHECK (version >= 1)
);

--bun:split

CREATE UNIQUE INDEX IF NOT EXISTS vehicles_external_id_key ON vehicles (business_id, external_id)
    WHERE external_id IS NOT NULL;

--bun:split

CREATE UNIQUE INDEX IF NOT EXISTS vehicles_one_primary_key ON vehicles (business_id) WHERE is_primary;

--bun:split

-- Trips. distance is exact hundredths of a mile; deleted softly
-- (deleted_at). A trip's vehicle is one of its business's.
CREATE TABLE IF NOT EXISTS trips (
    business_id   uuid        NOT NULL,
    id            uuid        NOT NULL,
    vehicle_id    uuid        NOT NULL,
    external_id   text,
    distance      bigint      NOT NULL,
    trip_date     date        NOT NULL,
    purpose       text        NOT NULL,
    start_address text,
    end_address   text,
    description   text,
    tags          jsonb       NOT NULL DEFAULT '[]',
    version       integer     NOT NULL,
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL,
    deleted_at    timestamptz,
    CONSTRAINT trips_pkey PRIMARY KEY (business_id, id),
    CONSTRAINT trips_vehicle_fkey FOREIGN KEY (business_id, vehicle_id) REFERENCES vehicles (business_id, id),
    CONSTRAINT trips_distance_check CHECK (distance > 0 AND distance <= 10000000),
    CONSTRAINT trips_purpose_check CHECK (purpose IN ('UNREVIEWED', 'BUSINESS', 'PERSONAL')),
    CONSTRAINT trips_tags_check CHECK (jsonb_typeof(tags) = 'array'),
    CONSTRAINT trips_version_check CHECK (version >= 1)
);

--bun:split

CREATE UNIQUE INDEX IF NOT EXISTS trips_external_id_key ON trips (business_id, external_id)
    WHERE external_id IS NOT NULL;

--bun:split

-- The summary and date listing: a business's trips by date, with what the
-- summary sums (an index-only scan).
CREATE INDEX IF NOT EXISTS trips_date_idx ON trips (business_id, trip_date, id)
    INCLUDE (purpose, distance, vehicle_id, deleted_at);

--bun:split

CREATE INDEX IF NOT EXISTS trips_created_at_idx ON trips (business_id, created_at, id);

--bun:split

CREATE INDEX IF NOT EXISTS trips_updated_at_idx ON trips (business_id, updated_at, id);

--bun:split

-- A vehicle's trips (is_eligible_for_deletion, vehicle_ids filters).
CREATE INDEX IF NOT EXISTS trips_vehicle_idx ON trips (business_id, vehicle_id, trip_date);
