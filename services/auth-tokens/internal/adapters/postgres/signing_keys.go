package postgres

import (
	"context"
	"crypto/ed25519"
	"time"

	"github.com/acctsuite/acct/services/auth-tokens/internal/signing"
	"github.com/uptrace/bun"
)

type signingKeyRow struct {
	bun.BaseModel `bun:"table:signing_keys"`

	KID           string     `bun:"kid,pk"`
	PublicKey     []byte     `bun:"public_key,type:bytea"`
	PrivateKeyEnc []byte     `bun:"private_key_enc,type:bytea"`
	CreatedAt     time.Time  `bun:"created_at"`
	ActivatesAt   time.Time  `bun:"activates_at"`
	RetiredAt     *time.Time `bun:"retired_at"`
}

func (r signingKeyRow) stored() signing.StoredKey {
	k := signing.StoredKey{KID: r.KID, PublicKey: ed25519.PublicKey(r.PublicKey), PrivateEnc: r.PrivateKeyEnc,
		CreatedAt: r.CreatedAt.UTC(), ActivatesAt: r.ActivatesAt.UTC()}
	if r.RetiredAt != nil {
		t := r.RetiredAt.UTC()
		k.RetiredAt = &t
	}
	return k
}

// rotationLockKey is the advisory lock that serialises key rotation across replicas.
const rotationLockKey = "auth.signing_keys.rotate"

// ListSigningKeys implements app.KeyStore (live keys only).
func (s *Store) ListSigningKeys(ctx context.Context) ([]signing.StoredKey, error) {
	return listKeys(ctx, s.db)
}

func listKeys(ctx context.Context, db bun.IDB) ([]signing.StoredKey, error) {
	var rows []signingKeyRow
	if err := db.NewSelect().Model(&rows).Where("retired_at IS NULL").Order("activates_at DESC", "created_at DESC").Scan(ctx); err != nil {
		return nil, err
	}
	keys := make([]signing.StoredKey, len(rows))
	for i, r := range rows {
		keys[i] = r.stored()
	}
	return keys, nil
}

// RotateSigningKeys implements app.KeyStore. A transaction-scoped advisory
// lock makes replicas starting together create one key, not one each.
func (s *Store) RotateSigningKeys(ctx context.Context, fn func([]signing.StoredKey) (*signing.StoredKey, []string, error)) error {
	return inTx(ctx, s.db, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtext(?))", rotationLockKey); err != nil {
			return err
		}
		keys, err := listKeys(ctx, tx)
		if err != nil {
			return err
		}
		insert, retire, err := fn(keys)
		if err != nil {
			return err
		}
		if insert != nil {
			r := signingKeyRow{KID: insert.KID, PublicKey: insert.PublicKey, PrivateKeyEnc: insert.PrivateEnc,
				CreatedAt: insert.CreatedAt, ActivatesAt: insert.ActivatesAt}
			if _, err := tx.NewInsert().Model(&r).Exec(ctx); err != nil {
				return err
			}
		}
		if len(retire) > 0 {
			if _, err := tx.NewUpdate().Model((*signingKeyRow)(nil)).
				Set("retired_at = now()").Where("kid IN (?)", bun.In(retire)).Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}
