package chart

import (
	"context"

	"github.com/uptrace/bun"
)

// CreateTable creates ledger_accounts from its row model, for the tests
// (the services create it by their own migrations).
func CreateTable(ctx context.Context, db bun.IDB) error {
	_, err := db.NewCreateTable().Model((*ledgerAccountRow)(nil)).Exec(ctx)
	return err
}
