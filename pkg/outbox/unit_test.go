package outbox_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/outbox"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/pkg/testkit"
)

// TestUnitOfWork: a store statement (pgdb.Conn) and a Publish inside Do
// commit together or not at all; a nested Do is a savepoint whose events
// go with it; outside Do, both run on their own.
func TestUnitOfWork(t *testing.T) {
	url := testkit.NewDatabase(t)
	db := testkit.OpenSchema(t, url, "svc", outbox.Migrations)
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, "CREATE TABLE things (id uuid PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	uow, pub := outbox.UnitOfWork{DB: db}, outbox.Events{DB: db}
	insert := func(ctx context.Context) error {
		_, err := pgdb.Conn(ctx, db).NewRaw("INSERT INTO things VALUES (?)", uuid.New()).Exec(ctx)
		return err
	}
	event := func() events.Event {
		e, err := events.New(testTopic, "test.step", "outbox-test", uuid.Must(uuid.NewV7()), step{N: 1})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	counts := func() [2]int {
		return [2]int{count(t, db, "SELECT count(*) FROM things"), count(t, db, "SELECT count(*) FROM outbox")}
	}
	fail := errors.New("rule refused")

	tests := []struct {
		name string
		run  func(ctx context.Context) error
		want [2]int // rows and events added
		err  error
	}{
		{"committed together", func(ctx context.Context) error {
			return uow.Do(ctx, func(ctx context.Context) error {
				if _, ok := pgdb.Conn(ctx, db).(bun.Tx); !ok {
					t.Error("no transaction in the context")
				}
				if err := insert(ctx); err != nil {
					return err
				}
				return pub.Publish(ctx, event(), event())
			})
		}, [2]int{1, 2}, nil},
		{"rolled back together", func(ctx context.Context) error {
			return uow.Do(ctx, func(ctx context.Context) error {
				if err := insert(ctx); err != nil {
					return err
				}
				if err := pub.Publish(ctx, event()); err != nil {
					return err
				}
				return fail
			})
		}, [2]int{0, 0}, fail},
		{"a failed savepoint drops its own work only", func(ctx context.Context) error {
			return uow.Do(ctx, func(ctx context.Context) error {
				if err := insert(ctx); err != nil {
					return err
				}
				if err := pub.Publish(ctx, event()); err != nil {
					return err
				}
				err := uow.Do(ctx, func(ctx context.Context) error {
					if err := insert(ctx); err != nil {
						return err
					}
					if err := pub.Publish(ctx, event()); err != nil {
						return err
					}
					return fail
				})
				if !errors.Is(err, fail) {
					t.Errorf("savepoint: %v", err)
				}
				return uow.Do(ctx, func(ctx context.Context) error { return pub.Publish(ctx, event()) })
			})
		}, [2]int{1, 2}, nil},
		{"outside a unit of work", func(ctx context.Context) error {
			if pgdb.Conn(ctx, db) != bun.IDB(db) {
				t.Error("a transaction in a plain context")
			}
			if err := insert(ctx); err != nil {
				return err
			}
			return pub.Publish(ctx, event())
		}, [2]int{1, 1}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := counts()
			if err := tt.run(ctx); !errors.Is(err, tt.err) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			after := counts()
			if got := [2]int{after[0] - before[0], after[1] - before[1]}; got != tt.want {
				t.Fatalf("added %v rows and events, want %v", got, tt.want)
			}
		})
	}
}

// TestUnitOfWorkWritesLargeBatches: a transaction that publishes more
// events than one INSERT carries stores every one of them, in the order
// published, with the data and headers exactly as given.
func TestUnitOfWorkWritesLargeBatches(t *testing.T) {
	url := testkit.NewDatabase(t)
	db := testkit.OpenSchema(t, url, "svc", outbox.Migrations)
	ctx := context.Background()
	uow, pub := outbox.UnitOfWork{DB: db}, outbox.Events{DB: db}
	const n = 2345
	evts := make([]events.Event, n)
	for i := range evts {
		e, err := events.New(testTopic, "test.step", "outbox-test", uuid.Must(uuid.NewV7()), step{N: i})
		if err != nil {
			t.Fatal(err)
		}
		// Text that must survive quoting byte for byte.
		e.Headers = map[string]string{"note": fmt.Sprintf(`it's "row" %d \ ok`, i)}
		evts[i] = e
	}
	err := uow.Do(ctx, func(ctx context.Context) error {
		// In several calls, as a use case publishes as it goes.
		for start := 0; start < n; start += 700 {
			if err := pub.Publish(ctx, evts[start:min(start+700, n)]...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		ID      uuid.UUID `bun:"id"`
		Data    string    `bun:"data"`
		Headers string    `bun:"headers"`
	}
	if err := db.NewRaw("SELECT id, data::text AS data, headers::text AS headers FROM outbox ORDER BY seq").Scan(ctx, &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != n {
		t.Fatalf("%d rows stored, want %d", len(rows), n)
	}
	for i, r := range rows {
		if r.ID != evts[i].ID || r.Data != string(evts[i].Data) {
			t.Fatalf("row %d: %s %s, want %s %s", i, r.ID, r.Data, evts[i].ID, evts[i].Data)
		}
		var h map[string]string
		if err := json.Unmarshal([]byte(r.Headers), &h); err != nil || h["note"] != evts[i].Headers["note"] {
			t.Fatalf("row %d headers %s (%v)", i, r.Headers, err)
		}
	}
}
