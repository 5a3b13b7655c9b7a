package service

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/acctsuite/acct/pkg/servicekit"
)

// admin is `auth-tokens admin create-client --name N`: it prints the new
// client's id and secret once (only the secret's hash is stored).
func (s *Service) admin(ctx context.Context, _ *servicekit.Kit, args []string, out io.Writer) error {
	if len(args) == 0 || args[0] != "create-client" {
		return errors.New("usage: auth-tokens admin create-client --name NAME")
	}
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
}
