package e2e

import "testing"

func TestLoadSettings(t *testing.T) {
	tests := []struct {
		name               string
		env                map[string]string
		wantBroker, wantPG string
		wantBase           string
		wantReceiverHost   string
	}{
		{name: "Makefile defaults, official PostgreSQL", env: map[string]string{},
			wantBroker: "ghcr.io/acctsuite/acct-broker:dev", wantPG: onlinePostgresImage},
		{name: "offline mode", env: map[string]string{"E2E_OFFLINE": "1", "E2E_REGISTRY": "local/", "E2E_TAG": "t1"},
			wantBroker: "local/acct-broker:t1", wantPG: offlinePostgresImage},
		{name: "explicit image wins over offline", env: map[string]string{"E2E_OFFLINE": "true", "E2E_POSTGRES_IMAGE": "my/pg:15"},
			wantBroker: "ghcr.io/acctsuite/acct-broker:dev", wantPG: "my/pg:15"},
		{name: "deployed stack", env: map[string]string{"E2E_BASE_URL": "http://acct.localhost/"},
			wantBroker: "ghcr.io/acctsuite/acct-broker:dev", wantPG: onlinePostgresImage, wantBase: "http://acct.localhost"},
		{name: "deployed stack that reaches this machine", env: map[string]string{"E2E_BASE_URL": "http://10.96.0.20", "E2E_RECEIVER_HOST": "192.168.1.5"},
			wantBroker: "ghcr.io/acctsuite/acct-broker:dev", wantPG: onlinePostgresImage, wantBase: "http://10.96.0.20", wantReceiverHost: "192.168.1.5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := loadSettings(func(k string) string { return tt.env[k] })
			if got := s.image("broker"); got != tt.wantBroker {
				t.Errorf("broker image = %s, want %s", got, tt.wantBroker)
			}
			if s.PostgresImage != tt.wantPG {
				t.Errorf("postgres image = %s, want %s", s.PostgresImage, tt.wantPG)
			}
			if s.ReceiverHost != tt.wantReceiverHost {
				t.Errorf("receiver host = %q, want %q", s.ReceiverHost, tt.wantReceiverHost)
			}
			if s.BaseURL != tt.wantBase {
				t.Errorf("base URL = %q, want %q", s.BaseURL, tt.wantBase)
			}
		})
	}
}
