package banking_test

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/services/transactions/internal/domain"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// Every account a posting names by stable name exists in the seeded chart
// (of a Canadian business, which has them all), so no posting can fail on a
// fresh business for want of an account.
func TestPostingAccountsAreInTheSeededChart(t *testing.T) {
	seeded := map[string]bool{}
	for _, a := range domain.SeedChart(uuid.New(), "CA", time.Now()) {
		if a.StableName != nil {
			seeded[*a.StableName] = true
		}
	}
	names := []string{banking.StableSalesTaxesReceivable, banking.StableSalesTaxesPayable,
		banking.StableDistributions, banking.StableContributions, banking.StableTransfersInTransit}
	for _, x := range []banking.ExclusionType{banking.PersonalInflows, banking.PersonalExpenses,
		banking.TransferBetweenAccounts} {
		names = append(names, banking.ExclusionStableName(x))
	}
	for _, n := range names {
		if !seeded[n] {
			t.Errorf("postings use %s, which the seeded chart lacks", n)
		}
	}
}
