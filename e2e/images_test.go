package e2e

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
)

// Programs that must not be in any image: shells and anything that runs a
// script (an attacker's way in once a service is compromised), busybox-style
// multi-call binaries, and package managers. Matched on the base name of
// every file, symlink or hard link, anywhere in the image.
var (
	forbiddenNames = map[string]string{}
	// Versioned interpreters: python3.11, perl5.36.0, lua5.4, php8.2, tclsh8.6, ...
	forbiddenVersioned = regexp.MustCompile(`^(python|perl|ruby|lua|luajit|php|tclsh|wish|node|pypy)[0-9.]*$`)
)

func init() {
	for kind, names := range map[string][]string{
		"shell": {"sh", "bash", "rbash", "dash", "ash", "zsh", "ksh", "ksh93", "mksh", "pdksh", "oksh", "lksh",
			"csh", "tcsh", "fish", "yash", "posh", "sash", "rc", "es", "elvish", "nu", "xonsh", "osh", "oil", "pwsh"},
		"multi-call binary (applets include a shell)": {"busybox", "busybox.static", "toybox"},
		"interpreter": {"perl", "python", "python2", "python3", "ruby", "irb", "lua", "luajit", "node", "nodejs",
			"php", "tclsh", "wish", "expect", "awk", "gawk", "mawk", "nawk", "jshell", "guile", "gdb"},
		"package manager": {"apt", "apt-get", "apt-cache", "aptitude", "dpkg", "dpkg-deb", "rpm", "yum", "dnf",
			"microdnf", "tdnf", "apk", "opkg", "ipkg", "pacman", "zypper", "emerge", "xbps-install", "snap", "flatpak",
			"nix", "nix-env", "pip", "pip3", "gem", "npm", "yarn", "conda", "brew"},
	} {
		for _, n := range names {
			forbiddenNames[n] = kind
		}
	}
}

// forbidden says why a file of that base name may not be in an image, or "".
func forbidden(base string) string {
	if kind, ok := forbiddenNames[base]; ok {
		return kind
	}
	if forbiddenVersioned.MatchString(base) {
		return "interpreter"
	}
	return ""
}

// checkUser accepts a numeric, non-root USER: "uid" or "uid:gid", neither 0.
func checkUser(user string) error {
	if user == "" {
		return errors.New("no USER: the container would run as root")
	}
	uid, gid, hasGID := strings.Cut(user, ":")
	for what, id := range map[string]string{"uid": uid, "gid": gid} {
		if what == "gid" && !hasGID {
			continue
		}
		n, err := strconv.ParseUint(id, 10, 32)
		if err != nil {
			return fmt.Errorf("USER %q: %s %q is not numeric (a name cannot be checked against runAsNonRoot)", user, what, id)
		}
		if n == 0 {
			return fmt.Errorf("USER %q: %s 0 is root", user, what)
		}
	}
	return nil
}

// auditFS reads an image's filesystem (a container export) and returns every
// violation: forbidden programs and setuid/setgid files. files is the number
// of entries read.
func auditFS(r io.Reader) (violations []string, files map[string]bool, err error) {
	files = map[string]bool{}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return violations, files, nil
		}
		if err != nil {
			return nil, nil, err
		}
		name := path.Clean("/" + h.Name)
		files[name] = true
		if h.Typeflag == tar.TypeDir {
			continue
		}
		if kind := forbidden(path.Base(name)); kind != "" {
			what := name
			if h.Typeflag == tar.TypeSymlink || h.Typeflag == tar.TypeLink {
				what += " -> " + h.Linkname
			}
			violations = append(violations, fmt.Sprintf("%s: %s", what, kind))
		}
		if h.Typeflag == tar.TypeReg && h.Mode&(04000|02000) != 0 {
			violations = append(violations, fmt.Sprintf("%s: setuid/setgid (mode %o)", name, h.Mode))
		}
	}
}

// imagesList is `make images-list` for the suite's registry and tag: the
// images to check are exactly the ones the Makefile builds.
func imagesList(t *testing.T, s settings) []string {
	t.Helper()
	cmd := exec.Command("make", "-s", "--no-print-directory", "-C", "..", "images-list",
		"REGISTRY="+strings.TrimRight(s.Registry, "/"), "TAG="+s.Tag)
	cmd.Env = append(os.Environ(), "MAKEFLAGS=", "MAKELEVEL=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("make images-list: %v", err)
	}
	refs := strings.Fields(string(out))
	if len(refs) == 0 {
		t.Fatal("make images-list printed no image")
	}
	return refs
}

// TestImagesHardened checks every image `make images` builds: it runs as a
// numeric non-root user, and its filesystem (a container created from it and
// exported) holds no shell, no interpreter, no package manager and no
// setuid/setgid file, yet holds its entrypoint.
func TestImagesHardened(t *testing.T) {
	s := loadSettings(os.Getenv)
	if s.BaseURL != "" {
		t.Skip("E2E_BASE_URL is set: the images belong to that deployment, `make images` built none here")
	}
	refs := imagesList(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		t.Fatalf("docker client: %v", err)
	}
	defer cli.Close()
	for _, ref := range refs {
		t.Run(ref, func(t *testing.T) {
			ins, err := cli.ImageInspect(ctx, ref)
			if err != nil {
				t.Fatalf("%s: %v (run `make images`)", ref, err)
			}
			if ins.Config == nil {
				t.Fatalf("%s: image has no config", ref)
			}
			if err := checkUser(ins.Config.User); err != nil {
				t.Errorf("%s: %v", ref, err)
			}
			if len(ins.Config.Entrypoint) == 0 || !path.IsAbs(ins.Config.Entrypoint[0]) {
				t.Fatalf("%s: entrypoint %q: want an absolute path (exec form)", ref, ins.Config.Entrypoint)
			}

			created, err := cli.ContainerCreate(ctx, client.ContainerCreateOptions{Image: ref})
			if err != nil {
				t.Fatalf("%s: create: %v", ref, err)
			}
			defer func() {
				if _, err := cli.ContainerRemove(context.Background(), created.ID, client.ContainerRemoveOptions{Force: true}); err != nil {
					t.Logf("remove %s: %v", created.ID, err)
				}
			}()
			export, err := cli.ContainerExport(ctx, created.ID, client.ContainerExportOptions{})
			if err != nil {
				t.Fatalf("%s: export: %v", ref, err)
			}
			defer export.Close()
			violations, files, err := auditFS(export)
			if err != nil {
				t.Fatalf("%s: reading the exported filesystem: %v", ref, err)
			}
			for _, v := range violations {
				t.Errorf("%s: %s", ref, v)
			}
			if !files[path.Clean(ins.Config.Entrypoint[0])] {
				t.Errorf("%s: entrypoint %s not found among the %d exported entries", ref, ins.Config.Entrypoint[0], len(files))
			}
			t.Logf("%s: user %s, %d entries, entrypoint %s", ref, ins.Config.User, len(files), ins.Config.Entrypoint[0])
		})
	}
}

// TestImageAuditRules shows the checks of TestImagesHardened fail where
// they must, without Docker: a synthetic image filesystem with every kind of
// offender, and USER values.
func TestImageAuditRules(t *testing.T) {
	pr, pw := io.Pipe()
	go func() {
		tw := tar.NewWriter(pw)
		for _, h := range []*tar.Header{
			{Name: "usr/", Typeflag: tar.TypeDir, Mode: 0o755},
			{Name: "usr/bin/", Typeflag: tar.TypeDir, Mode: 0o755},
			{Name: "gateway", Typeflag: tar.TypeReg, Mode: 0o755},
			{Name: "usr/bin/tesseract", Typeflag: tar.TypeReg, Mode: 0o755},
			{Name: "usr/lib/x86_64-linux-gnu/libbash-like.so.1", Typeflag: tar.TypeReg, Mode: 0o644},
			{Name: "opt/tools/busybox", Typeflag: tar.TypeReg, Mode: 0o755},
			{Name: "bin/sh", Typeflag: tar.TypeSymlink, Linkname: "/opt/tools/busybox"},
			{Name: "usr/local/bin/python3.12", Typeflag: tar.TypeReg, Mode: 0o755},
			{Name: "usr/bin/apt-get", Typeflag: tar.TypeReg, Mode: 0o755},
			{Name: "usr/bin/dash", Typeflag: tar.TypeLink, Linkname: "usr/bin/tesseract"},
			{Name: "usr/bin/passwd", Typeflag: tar.TypeReg, Mode: 0o4755},
			{Name: "sh/", Typeflag: tar.TypeDir, Mode: 0o755}, // a folder of that name runs nothing
		} {
			if err := tw.WriteHeader(h); err != nil {
				pw.CloseWithError(err)
				return
			}
		}
		pw.CloseWithError(tw.Close())
	}()
	violations, files, err := auditFS(pr)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"/opt/tools/busybox: multi-call binary (applets include a shell)",
		"/bin/sh -> /opt/tools/busybox: shell",
		"/usr/local/bin/python3.12: interpreter",
		"/usr/bin/apt-get: package manager",
		"/usr/bin/dash -> usr/bin/tesseract: shell",
		"/usr/bin/passwd: setuid/setgid (mode 4755)",
	}
	if strings.Join(violations, "\n") != strings.Join(want, "\n") {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(violations, "\n"), strings.Join(want, "\n"))
	}
	if !files["/gateway"] || !files["/usr/bin/tesseract"] {
		t.Errorf("files read: %v", files)
	}

	for user, ok := range map[string]bool{
		"65532:65532": true, "65532": true, "1000:1000": true,
		"": false, "0": false, "0:0": false, "65532:0": false, "root": false, "nonroot": false, "nonroot:65532": false, "65532:nonroot": false, "-1": false,
	} {
		if err := checkUser(user); (err == nil) != ok {
			t.Errorf("checkUser(%q) = %v, want ok=%v", user, err, ok)
		}
	}
}
