// Package idempotency makes creating POSTs safe to retry: a request carrying
// an Idempotency-Key header is run at most once per (caller, key) within the
// TTL (24 h); a retry with the same body gets the first response again, a
// reuse of the key with another body gets 409. Keys live in PostgreSQL, so
// every replica of a service shares them.
//
// A replay repeats the stored status, Content-Type, body, Cache-Control,
// Pragma and Location (so a response marked no-store stays so).
// Routes whose responses are secrets (bearer tokens) mount the middleware
// with Options.NoStore: the key still guards against concurrent duplicates
// and reuse with another request, but no response is ever written to the
// table, and a retry runs the handler again.
package idempotency

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/pgdb"
)

// Header names.
const (
	HeaderKey      = "Idempotency-Key"
	HeaderReplayed = "Idempotent-Replayed"
)

// Error enums of the 409 responses.
const (
	EnumKeyReused     = "IdempotencyKeyReused"
	EnumKeyInProgress = "IdempotencyKeyInProgress"
)

// MaxKeyLength is the longest accepted Idempotency-Key.
const MaxKeyLength = 255

// replayedHeaders are the response headers stored with a response and sent
// again on its replay, besides Content-Type: caching directives must survive
// a replay, and a 201's Location names what was created.
var replayedHeaders = [...]string{fiber.HeaderCacheControl, fiber.HeaderPragma, fiber.HeaderLocation}

// Defaults of Options.
const (
	DefaultTTL               = 24 * time.Hour
	DefaultInProgressTimeout = 30 * time.Second
)

// legacyInProgressTimeout is how long a reservation made by a version that
// did not show signs of life (no alive_at) blocks retries.
const legacyInProgressTimeout = 5 * time.Minute

// LocalsClientID is the fiber locals key read by the default Scope.
const LocalsClientID = "client_id"

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations creates the idempotency_keys table; run it with pgdb.Migrate.
var Migrations = pgdb.Embedded("idempotency", migrationFiles, "migrations")

// Options configure Middleware.
type Options struct {
	// Scope names who owns a key (the client id), so two callers never
	// see each other's responses. Default: the string in locals "client_id".
	Scope func(c *fiber.Ctx) string
	// TTL is how long a key is remembered; DefaultTTL when 0.
	TTL time.Duration
	// InProgressTimeout is after how long without a sign of life a
	// reservation may be taken over by a retry (its process was killed
	// mid-request); DefaultInProgressTimeout when 0. While its request
	// runs, however long, the owner shows it is alive every third of it; a
	// request that loses its reservation all the same (paused longer than
	// this) stores nothing and rolls back what it changed in its deferred
	// transaction.
	InProgressTimeout time.Duration
	// Logger reports failures to store responses; slog.Default() when nil.
	Logger *slog.Logger
	// Now is the clock; time.Now when nil (tests move it).
	Now func() time.Time
	// NoStore never writes a response to the table: for routes whose
	// responses hold secrets such as bearer tokens, which must not sit in a
	// database for the TTL nor be handed out again. The key still answers
	// 409 to a concurrent duplicate and to reuse with another request; a
	// retry of a finished request runs the handler again (no replay).
	NoStore bool
}

func (o *Options) defaults() {
	if o.Scope == nil {
		o.Scope = func(c *fiber.Ctx) string {
			s, _ := c.Locals(LocalsClientID).(string)
			return s
		}
	}
	if o.TTL <= 0 {
		o.TTL = DefaultTTL
	}
	if o.InProgressTimeout <= 0 {
		o.InProgressTimeout = DefaultInProgressTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// record is a row of idempotency_keys.
type record struct {
	Method       string `bun:"method"`
	Path         string `bun:"path"`
	RequestHash  []byte `bun:"request_hash"`
	State        string `bun:"state"`
	Status       sql.NullInt64
	ContentType  sql.NullString
	ResponseBody []byte            `bun:"response_body"`
	Headers      map[string]string `bun:"response_headers,type:jsonb"`
}

const (
	stateInProgress = "in_progress"
	stateDone       = "done"
)

// ParseKey checks an Idempotency-Key header value: at most MaxKeyLength
// bytes of UTF-8 text without control characters (it is stored as
// PostgreSQL text, which cannot hold NUL or invalid UTF-8). A bad key is a
// 400 naming the header, never a database error.
func ParseKey(raw string) (string, error) {
	if len(raw) > MaxKeyLength {
		return "", apperr.Field(HeaderKey, fmt.Sprintf("must be at most %d characters", MaxKeyLength))
	}
	if !utf8.ValidString(raw) || strings.ContainsFunc(raw, unicode.IsControl) {
		return "", apperr.Field(HeaderKey, "must be UTF-8 text without control characters")
	}
	return raw, nil
}

// Middleware handles POST requests carrying an Idempotency-Key header; other
// requests pass through. Mount it after authentication (it needs the scope)
// and before the handlers that create resources.
func Middleware(db *bun.DB, opts Options) fiber.Handler {
	opts.defaults()
	return func(c *fiber.Ctx) error {
		// A streamed body (a statement preview) is its handler's to read,
		// and such a route changes nothing to replay.
		if c.Method() != fiber.MethodPost || httpx.Streamed(c) {
			return c.Next()
		}
		key := c.Get(HeaderKey)
		if key == "" {
			return c.Next()
		}
		key, err := ParseKey(key)
		if err != nil {
			return err
		}
		scope := opts.Scope(c)
		path := c.Path()
		hash := requestHash(c.Method(), path, c.Body())
		ctx := c.UserContext()

		// A reservation deleted by a failing first request (5xx) between our
		// insert and select makes us loop once more.
		for attempt := 0; ; attempt++ {
			now := opts.Now()
			owner := uuid.New()
			reserved, err := reserve(ctx, db, scope, key, c.Method(), path, hash, owner, now, opts)
			if err != nil {
				return apperr.Wrap(apperr.Internal, err, "reserve idempotency key")
			}
			if reserved {
				return run(c, db, reservation{scope: scope, key: key, owner: owner}, opts)
			}
			var rec record
			err = db.NewSelect().TableExpr("idempotency_keys").
				Column("method", "path", "request_hash", "state", "status", "content_type", "response_body", "response_headers").
				Where("scope = ? AND key = ?", scope, key).Scan(ctx, &rec)
			if errors.Is(err, sql.ErrNoRows) && attempt < 3 {
				continue
			}
			if err != nil {
				return apperr.Wrap(apperr.Internal, err, "read idempotency key")
			}
			switch {
			case rec.Method != c.Method() || rec.Path != path || !bytes.Equal(rec.RequestHash, hash):
				return apperr.New(apperr.Conflict,
					"this Idempotency-Key was already used with a different request").WithEnum(EnumKeyReused)
			case rec.State == stateInProgress, !rec.Status.Valid:
				// (Without a stored status: finished without a stored
				// response (NoStore), and the reserve above lost a race to
				// another retry that now runs it.)
				return errInProgress()
			}
			c.Set(HeaderReplayed, "true")
			if rec.ContentType.Valid && rec.ContentType.String != "" {
				c.Set(fiber.HeaderContentType, rec.ContentType.String)
			}
			for _, h := range replayedHeaders {
				if v, ok := rec.Headers[h]; ok {
					c.Set(h, v)
				}
			}
			return c.Status(int(rec.Status.Int64)).Send(rec.ResponseBody)
		}
	}
}

// errInProgress is the 409 of a key whose request is still running (or
// lost its key to a later one): the client retries later with the same key.
func errInProgress() error {
	return apperr.New(apperr.Conflict,
		"a request with this Idempotency-Key is still in progress; retry later").WithEnum(EnumKeyInProgress)
}

// requestHash fingerprints what the key promises to repeat.
func requestHash(method, path string, body []byte) []byte {
	h := sha256.New()
	h.Write([]byte(method))
	h.Write([]byte{0})
	h.Write([]byte(path))
	h.Write([]byte{0})
	h.Write(body)
	return h.Sum(nil)
}

// reservation is a key held by one request: owner tells it from a later
// request that took the key over.
type reservation struct {
	scope, key string
	owner      uuid.UUID
}

// ownedRow selects the reservation's row while its owner holds it
// (arguments: scope, key, owner).
const ownedRow = "scope = ? AND key = ? AND owner = ?"

// heartbeat shows that r's request is still running, every third of
// InProgressTimeout, until the returned stop is called (stop waits for the
// last beat to end; calling it again does nothing).
func heartbeat(ctx context.Context, db bun.IDB, r reservation, opts Options) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	every := max(opts.InProgressTimeout/3, time.Millisecond)
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			bctx, bcancel := context.WithTimeout(ctx, every)
			_, err := db.NewUpdate().TableExpr("idempotency_keys").Set("alive_at = ?", opts.Now()).
				Where(ownedRow, r.scope, r.key, r.owner).Where("state = ?", stateInProgress).Exec(bctx)
			bcancel()
			if err != nil && ctx.Err() == nil {
				opts.Logger.WarnContext(ctx, "idempotency key: show the request is alive", "key", r.key, "error", err)
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			<-done
		})
	}
}

// reserve inserts an in_progress row for owner, or takes over an expired
// one, one in progress without a sign of life for InProgressTimeout (its
// process is gone), or a finished one whose response was not stored
// (NoStore) for the same request, in one statement so concurrent requests
// cannot both win.
func reserve(ctx context.Context, db bun.IDB, scope, key, method, path string, hash []byte, owner uuid.UUID,
	now time.Time, opts Options) (bool, error) {
	res, err := db.ExecContext(ctx, `
INSERT INTO idempotency_keys AS k (scope, key, method, path, request_hash, state, created_at, expires_at, owner, alive_at)
VALUES (?, ?, ?, ?, ?, 'in_progress', ?, ?, ?, ?)
ON CONFLICT (scope, key) DO UPDATE SET
    method = EXCLUDED.method, path = EXCLUDED.path, request_hash = EXCLUDED.request_hash,
    state = 'in_progress', status = NULL, content_type = NULL, response_body = NULL, response_headers = NULL,
    created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at, owner = EXCLUDED.owner, alive_at = EXCLUDED.alive_at
WHERE k.expires_at <= ?
   OR (k.state = 'in_progress' AND (k.alive_at <= ? OR (k.alive_at IS NULL AND k.created_at <= ?)))
   OR (k.state = 'done' AND k.status IS NULL AND k.method = EXCLUDED.method
       AND k.path = EXCLUDED.path AND k.request_hash = EXCLUDED.request_hash)`,
		scope, key, method, path, hash, now, now.Add(opts.TTL), owner, now,
		now, now.Add(-opts.InProgressTimeout), now.Add(-legacyInProgressTimeout))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// run executes the rest of the chain for a reserved key and records the
// outcome: responses below 500 are stored for replay (with NoStore, only
// marked done); server errors (and panics) release the key so the client's
// retry can run.
//
// The request's units of work run in one deferred transaction
// (pgdb.Defer) that commits only with the stored response: a process
// killed between the two can never leave changes applied under a key
// still marked in progress, which a retry after InProgressTimeout would
// apply a second time.
func run(c *fiber.Ctx, db *bun.DB, r reservation, opts Options) (err error) {
	// The request context may be cancelled when the client goes away; the
	// bookkeeping must still happen.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.UserContext()), 10*time.Second)
	defer cancel()
	stopBeat := heartbeat(context.WithoutCancel(c.UserContext()), db, r, opts)
	defer stopBeat()
	release := func() {
		stopBeat()
		if _, derr := db.NewDelete().TableExpr("idempotency_keys").Where(ownedRow, r.scope, r.key, r.owner).
			Where("state = ?", stateInProgress).Exec(ctx); derr != nil {
			opts.Logger.ErrorContext(ctx, "release idempotency key", "key", r.key, "error", derr)
		}
	}
	reqCtx, deferred := pgdb.Defer(c.UserContext(), db)
	c.SetUserContext(reqCtx)
	abort := func() {
		if rerr := deferred.Rollback(); rerr != nil {
			opts.Logger.ErrorContext(ctx, "roll back idempotent request", "key", r.key, "error", rerr)
		}
		release()
	}
	defer func() {
		if r := recover(); r != nil {
			abort()
			panic(r)
		}
	}()

	if herr := c.Next(); herr != nil {
		// Render the error now so the stored response is what the client sees.
		if werr := c.App().ErrorHandler(c, herr); werr != nil {
			abort()
			return werr
		}
	}
	resp := c.Response()
	status := resp.StatusCode()
	if status >= fiber.StatusInternalServerError {
		abort()
		return nil
	}
	// The request is over: no more signs of life, and the response is
	// stored only while this request still holds the key.
	stopBeat()
	conn := bun.IDB(db)
	tx, inTx := deferred.Tx()
	if inTx {
		conn = tx
	}
	q := conn.NewUpdate().TableExpr("idempotency_keys").
		Set("state = ?", stateDone).
		Where(ownedRow, r.scope, r.key, r.owner)
	if !opts.NoStore {
		headers, herr := json.Marshal(headersToReplay(resp))
		if herr != nil {
			abort()
			return fmt.Errorf("encode replayed headers: %w", herr)
		}
		q = q.Set("status = ?", status).
			Set("content_type = ?", string(resp.Header.ContentType())).
			Set("response_body = ?", resp.Body()).
			Set("response_headers = ?::jsonb", string(headers))
	}
	res, uerr := q.Exec(ctx)
	if uerr == nil {
		if n, _ := res.RowsAffected(); n == 0 {
			// A retry took the key over (this request showed no sign of
			// life for InProgressTimeout): it answers for the key, and what
			// this request changed in its transaction rolls back.
			opts.Logger.WarnContext(ctx, "idempotency key taken over while its request ran", "key", r.key)
			if rerr := deferred.Rollback(); rerr != nil {
				opts.Logger.ErrorContext(ctx, "roll back idempotent request", "key", r.key, "error", rerr)
			}
			resp.ResetBody()
			resp.Header.Del(fiber.HeaderLocation)
			return c.App().ErrorHandler(c, errInProgress())
		}
		uerr = deferred.Commit()
	}
	if uerr == nil {
		return nil
	}
	opts.Logger.ErrorContext(ctx, "store idempotent response", "key", r.key, "error", uerr)
	abort()
	if !inTx {
		// Nothing the request changed waited for the response: it stands,
		// and the key is free again for a retry.
		return nil
	}
	// The changes rolled back with the response: the answer is a failure.
	resp.ResetBody()
	resp.Header.Del(fiber.HeaderLocation)
	return c.App().ErrorHandler(c, apperr.Wrap(apperr.Internal, uerr, "commit the idempotent request"))
}

// headersToReplay picks the replayedHeaders resp carries.
func headersToReplay(resp *fiber.Response) map[string]string {
	out := map[string]string{}
	for _, h := range replayedHeaders {
		if v := resp.Header.Peek(h); len(v) > 0 {
			out[h] = string(v)
		}
	}
	return out
}

// DeleteExpired removes keys that expired before now; run it periodically
// to keep the table small (expired keys are also replaced on reuse).
func DeleteExpired(ctx context.Context, db bun.IDB, now time.Time) (int64, error) {
	res, err := db.NewDelete().TableExpr("idempotency_keys").Where("expires_at <= ?", now).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("delete expired idempotency keys: %w", err)
	}
	return res.RowsAffected()
}
