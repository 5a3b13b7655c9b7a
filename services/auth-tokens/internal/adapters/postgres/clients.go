package postgres

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/services/auth-tokens/internal/domain"
	"github.com/uptrace/bun"
)

type clientRow struct {
	bun.BaseModel `bun:"table:clients"`

	ID         string    `bun:"id,pk"`
	Name       string    `bun:"name"`
	SecretHash string    `bun:"secret_hash"`
	CreatedAt  time.Time `bun:"created_at"`
	UpdatedAt  time.Time `bun:"updated_at"`
}

func toClientRow(c domain.Client) clientRow {
	return clientRow{ID: c.ID, Name: c.Name, SecretHash: c.SecretHash, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
}

func (r clientRow) domain() domain.Client {
	return domain.Client{ID: r.ID, Name: r.Name, SecretHash: r.SecretHash, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
}

// FindClient implements app.ClientStore.
func (s *Store) FindClient(ctx context.Context, id string) (domain.Client, bool, error) {
	var r clientRow
	err := pgdb.Conn(ctx, s.db).NewSelect().Model(&r).Where("id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return domain.Client{}, false, nil
	}
	if err != nil {
		return domain.Client{}, false, err
	}
	return r.domain(), true, nil
}

// CreateClient implements app.ClientStore.
func (s *Store) CreateClient(ctx context.Context, c domain.Client) error {
	r := toClientRow(c)
	_, err := pgdb.Conn(ctx, s.db).NewInsert().Model(&r).Exec(ctx)
	if pgdb.IsUniqueViolation(err) {
		return apperr.Wrap(apperr.Conflict, err, "client already exists")
	}
	return err
}

// UpsertClient implements app.ClientStore.
func (s *Store) UpsertClient(ctx context.Context, c domain.Client) error {
	r := toClientRow(c)
	_, err := pgdb.Conn(ctx, s.db).NewInsert().Model(&r).
		On("CONFLICT (id) DO UPDATE").
		Set("name = EXCLUDED.name").
		Set("secret_hash = EXCLUDED.secret_hash").
		Set("updated_at = EXCLUDED.updated_at").
		Exec(ctx)
	return err
}
