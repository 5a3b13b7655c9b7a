package app

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/services/transactions/internal/domain/statementcsv"
)

// EnumInvalidStatementCSV is the error_enum of a file that is not a
// readable bank statement.
const EnumInvalidStatementCSV = "InvalidStatementCsv"

// MaxStatementCSVBytes bounds the statement file of POST
// /custom-accounts/{id}/parse-csv.
const MaxStatementCSVBytes = 50 << 20

// PreviewStatementCSV is POST /custom-accounts/{id}/parse-csv: the
// statement in r read as the custom account's transactions, nothing
// stored. Each row carries an external id minted for this account, so
// importing the preview's rows through POST
// /custom-accounts/{id}/transactions twice creates nothing new. 404 for
// an account the business does not have; a file that is no statement is a
// 400 InvalidStatementCsv saying why.
func (b *Banking) PreviewStatementCSV(ctx context.Context, businessID, accountID uuid.UUID, r io.Reader, o statementcsv.Options) (statementcsv.Preview, error) {
	acct, ok, err := b.store.FindCustomAccount(ctx, businessID, accountID)
	if err != nil {
		return statementcsv.Preview{}, fmt.Errorf("find custom account %s: %w", accountID, err)
	}
	if !ok {
		return statementcsv.Preview{}, ErrCustomAccountNotFound()
	}
	o.AccountKey = acct.ID.String()
	p, err := statementcsv.Parse(r, o)
	var fe *statementcsv.FileError
	switch {
	case errors.As(err, &fe):
		return statementcsv.Preview{}, apperr.FieldErrors(apperr.InvalidPayload, map[string]string{"file": fe.Msg}).WithEnum(EnumInvalidStatementCSV)
	case err != nil:
		return statementcsv.Preview{}, err
	}
	return p, nil
}
