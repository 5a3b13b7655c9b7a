package service

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/servicekit"
	"github.com/acctsuite/acct/services/auth-tokens/internal/app"
)

const adminUsage = "usage: auth-tokens admin create-client --name NAME\n" +
	"       auth-tokens admin refused-token --client ID --kind expired|unknown-business"

// admin is `auth-tokens admin`:
//
//   - create-client --name N prints the new client's id and secret once
//     (only the secret's hash is stored);
//   - refused-token --client ID --kind K prints a token signed with the
//     current key that grants nothing (app.RefusedToken): an expired
//     platform token, or a business token for a business that does not
//     exist. The tenancy matrix (tools/stacktest) uses them.
func (s *Service) admin(ctx context.Context, _ *servicekit.Kit, args []string, out io.Writer) error {
	if len(args) == 0 {
		return errors.New(adminUsage)
	}
	switch args[0] {
	case "create-client":
		fs := flag.NewFlagSet("create-client", flag.ContinueOnError)
		fs.SetOutput(out)
		name := fs.String("name", "", "client name (required)")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *name == "" {
			return errors.New("--name is required")
		}
		creds, err := s.App.CreateClient(ctx, *name)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(out, "client_id=%s\nclient_secret=%s\n", creds.Client.ID, creds.Secret)
		return err
	case "refused-token":
		fs := flag.NewFlagSet("refused-token", flag.ContinueOnError)
		fs.SetOutput(out)
		client := fs.String("client", "", "the client the token names (required)")
		kind := fs.String("kind", "", app.RefusedExpired+" or "+app.RefusedUnknownBusiness+" (required)")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *client == "" || *kind == "" {
			return errors.New("--client and --kind are required")
		}
		// Commands do not run the service's start-up work: load the keys.
		if err := s.Keys.Sync(ctx); err != nil {
			return err
		}
		tok, err := s.App.RefusedToken(ctx, *client, *kind)
		if err != nil {
			return err
		}
		bid := ""
		if tok.Identity.BusinessID != uuid.Nil {
			bid = tok.Identity.BusinessID.String()
		}
		_, err = fmt.Fprintf(out, "access_token=%s\nexpires_at=%s\nbusiness_id=%s\n", tok.AccessToken, tok.Identity.ExpiresAt.Format(time.RFC3339), bid)
		return err
	}
	return errors.New(adminUsage)
}
