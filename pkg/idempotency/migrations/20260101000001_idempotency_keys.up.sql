CREATE TABLE IF NOT EXISTS idempotency_keys (
    scope         text        NOT NULL,
    key           text        NOT NULL CHECK (char_length(key) BETWEEN 1 AND 255),
    method        text        NOT NULL,
    path          text        NOT NULL,
    request_hash  bytea       NOT NULL,
    state         text        NOT NULL CHECK (state IN ('in_progress', 'done')),
    status        integer,
    content_type  text,
    response_body bytea,
    created_at    timestamptz NOT NULL,
    expires_at    timestamptz NOT NULL,
    PRIMARY KEY (scope, key)
);

CREATE INDEX IF NOT EXISTS idempotency_keys_expires_at ON idempotency_keys (expires_at);
