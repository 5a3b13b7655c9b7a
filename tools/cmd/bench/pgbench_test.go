package main

import "testing"

func TestParsePgbench(t *testing.T) {
	tests := []struct {
		name    string
		out     string
		want    pgbenchResult
		wantErr bool
	}{
		{
			name: "PostgreSQL 15",
			out: `transaction type: /tmp/acct-pgbench-1/categorize.sql
scaling factor: 1
query mode: simple
number of clients: 32
number of threads: 2
maximum number of tries: 1
duration: 10 s
number of transactions actually processed: 21034
number of failed transactions: 3 (0.014%)
latency average = 15.215 ms
initial connection time = 61.829 ms
tps = 2103.189245 (without initial connection time)
`,
			want: pgbenchResult{processed: 21034, failed: 3, tps: 2103.189245},
		},
		{
			name: "PostgreSQL 14",
			out: `number of transactions actually processed: 35000
latency average = 9.143 ms
tps = 3499.876543 (excluding connections establishing)
`,
			want: pgbenchResult{processed: 35000, tps: 3499.876543},
		},
		{
			name:    "connection error",
			out:     "pgbench: error: connection to server failed: Connection refused\n",
			wantErr: true,
		},
		{
			name:    "nothing processed",
			out:     "number of transactions actually processed: 0\ntps = 0.000000 (without initial connection time)\n",
			wantErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parsePgbench([]byte(tt.out))
			if (err != nil) != tt.wantErr {
				t.Fatalf("parsePgbench error = %v, want error %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Fatalf("parsePgbench = %+v, want %+v", got, tt.want)
			}
		})
	}
}
