package main

import (
	"bufio"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
)

// gitCommit is the commit the run measured (short hash), with "-dirty"
// when the work tree has changes other than the performance summary
// itself; "unknown" outside a git checkout.
func gitCommit(root string) string {
	out, err := exec.Command("git", "-C", root, "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	commit := strings.TrimSpace(string(out))
	status, err := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no", "--",
		".", ":(exclude)docs/benchmarks.md", ":(exclude)docs/benchmarks.json").Output()
	if err == nil && len(strings.TrimSpace(string(status))) > 0 {
		commit += "-dirty"
	}
	return commit
}

// machineInfo is the machine in one line: cores, CPU model, memory, OS.
func machineInfo() string {
	s := strconv.Itoa(runtime.NumCPU()) + " cores"
	if m := procField("/proc/cpuinfo", "model name"); m != "" {
		s += " (" + strings.Join(strings.Fields(m), " ") + ")"
	}
	if kb, err := strconv.ParseFloat(strings.TrimSuffix(procField("/proc/meminfo", "MemTotal"), " kB"), 64); err == nil {
		s += ", " + strconv.FormatFloat(kb/(1024*1024), 'f', 1, 64) + " GiB RAM"
	}
	return s + ", " + runtime.GOOS + "/" + runtime.GOARCH
}

// procField is the value of the first "key: value" line of a /proc file
// whose key is key ("" when absent).
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// commandLine is the command as typed (arguments with spaces quoted).
func commandLine(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t'\"$`\\") {
			a = strconv.Quote(a)
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}

// firstLine is s's first line, cut to n characters.
func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return s
}
