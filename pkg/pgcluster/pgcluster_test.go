package pgcluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBinDirFindsServerBinaries(t *testing.T) {
	dir, err := BinDir()
	if err != nil {
		t.Fatalf("%v (the test machine must have PostgreSQL installed)", err)
	}
	for _, b := range []string{"initdb", "pg_ctl", "postgres"} {
		if _, err := os.Stat(filepath.Join(dir, b)); err != nil {
			t.Fatalf("%s missing in %s", b, dir)
		}
	}
}

func TestCommand(t *testing.T) {
	cases := []struct {
		user string
		want string
	}{
		{"", "echo hi"},
		{"postgres", "-u postgres -- echo hi"},
	}
	for _, tc := range cases {
		cmd := Command(tc.user, "echo", "hi")
		got := strings.Join(cmd.Args[1:], " ")
		if tc.user == "" {
			got = strings.Join(cmd.Args, " ")
		}
		if !strings.HasSuffix(got, tc.want) {
			t.Errorf("Command(%q) args %q, want suffix %q", tc.user, got, tc.want)
		}
	}
	if got := ShellJoin([]string{"a b", "it's"}); got != `'a b' 'it'\''s'` {
		t.Errorf("ShellJoin = %s", got)
	}
}
