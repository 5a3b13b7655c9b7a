package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestLoadConfig(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    config
		wantErr string
	}{
		{
			name: "defaults like the official image",
			env:  map[string]string{"POSTGRES_PASSWORD": "pw"},
			want: config{User: "postgres", Password: "pw", DB: "postgres", AuthMethod: "scram-sha-256",
				DataDir: "/var/lib/postgresql/data", BinDir: "/usr/lib/postgresql/15/bin", SocketDir: "/var/run/postgresql"},
		},
		{
			name: "database defaults to the user",
			env:  map[string]string{"POSTGRES_USER": "acct", "POSTGRES_PASSWORD": "pw", "PGDATA": "/data"},
			want: config{User: "acct", Password: "pw", DB: "acct", AuthMethod: "scram-sha-256",
				DataDir: "/data", BinDir: "/usr/lib/postgresql/15/bin", SocketDir: "/var/run/postgresql"},
		},
		{
			name: "explicit database and trust without password",
			env:  map[string]string{"POSTGRES_DB": "app", "POSTGRES_HOST_AUTH_METHOD": "trust"},
			want: config{User: "postgres", DB: "app", AuthMethod: "trust",
				DataDir: "/var/lib/postgresql/data", BinDir: "/usr/lib/postgresql/15/bin", SocketDir: "/var/run/postgresql"},
		},
		{name: "password required", env: map[string]string{}, wantErr: "POSTGRES_PASSWORD is required"},
		{name: "unknown auth method", env: map[string]string{"POSTGRES_PASSWORD": "pw", "POSTGRES_HOST_AUTH_METHOD": "ident"}, wantErr: "want scram-sha-256"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := loadConfig(func(k string) string { return tt.env[k] })
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("loadConfig: %v", err)
			}
			if got != tt.want {
				t.Fatalf("config = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestQuoteIdent(t *testing.T) {
	tests := map[string]string{
		"acct":         `"acct"`,
		"Mixed Case":   `"Mixed Case"`,
		`evil"; DROP`:  `"evil""; DROP"`,
		`""`:           `""""""`,
		"with-hyphens": `"with-hyphens"`,
	}
	for in, want := range tests {
		if got := quoteIdent(in); got != want {
			t.Errorf("quoteIdent(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestForwardedSignal(t *testing.T) {
	tests := []struct {
		in, want os.Signal
	}{
		{syscall.SIGTERM, syscall.SIGINT},
		{syscall.SIGINT, syscall.SIGINT},
		{syscall.SIGQUIT, syscall.SIGQUIT},
		{syscall.SIGHUP, syscall.SIGHUP},
	}
	for _, tt := range tests {
		if got := forwardedSignal(tt.in); got != tt.want {
			t.Errorf("forwardedSignal(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestInitialized(t *testing.T) {
	empty := t.TempDir()
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "PG_VERSION"), []byte("15\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		dir  string
		want bool
	}{
		{empty, false},
		{full, true},
		{filepath.Join(empty, "missing"), false},
	}
	for _, tt := range tests {
		got, err := initialized(tt.dir)
		if err != nil {
			t.Fatalf("initialized(%s): %v", tt.dir, err)
		}
		if got != tt.want {
			t.Errorf("initialized(%s) = %v, want %v", tt.dir, got, tt.want)
		}
	}
}

func TestHBARuleAdmitsEveryTCPClient(t *testing.T) {
	rule := hbaRule("scram-sha-256")
	if !strings.Contains(rule, "\nhost all all all scram-sha-256\n") {
		t.Fatalf("rule %q does not admit every TCP client with password auth", rule)
	}
}
