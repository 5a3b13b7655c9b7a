package main

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"text/template"
	"time"
)

// nginxProxy is nginx as a plain reverse proxy in front of one upstream: the
// yardstick for the gateway's own proxying cost. It runs unprivileged-style
// from its own prefix folder (config, pid, logs and temp files), so it needs
// nothing from the system's nginx set-up.
type nginxProxy struct {
	bin       string
	dir       string
	conf      string
	Addr      string
	AccessLog string // access log file, empty when access logs are off
}

var nginxConf = template.Must(template.New("nginx").Parse(`# Written by bench: nginx as a plain reverse proxy.
{{if .Root}}user root;
{{end}}worker_processes 2;
pid {{.Dir}}/nginx.pid;
error_log {{.Dir}}/error.log warn;

events {
    worker_connections 4096;
}

http {
    {{if .AccessLog}}access_log {{.AccessLog}};{{else}}access_log off;{{end}}
    client_body_temp_path {{.Dir}}/client_body;
    proxy_temp_path {{.Dir}}/proxy;
    fastcgi_temp_path {{.Dir}}/fastcgi;
    uwsgi_temp_path {{.Dir}}/uwsgi;
    scgi_temp_path {{.Dir}}/scgi;
    # Long-lived client connections, as our load generators keep them.
    keepalive_requests 1000000;

    upstream backend {
        server {{.Upstream}};
        keepalive 64;
        keepalive_requests 1000000;
    }

    server {
        listen {{.Addr}};
        location / {
            proxy_pass http://backend;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        }
    }
}
`))

// startNginx writes a configuration under dir and starts nginx (its master
// daemonises; stop with Stop). upstream is the proxied base URL.
func startNginx(bin, dir, addr, upstream string, accessLog bool) (*nginxProxy, error) {
	u, err := url.Parse(upstream)
	if err != nil {
		return nil, fmt.Errorf("nginx upstream %q: %w", upstream, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	n := &nginxProxy{bin: bin, dir: dir, conf: filepath.Join(dir, "nginx.conf"), Addr: addr}
	if accessLog {
		n.AccessLog = filepath.Join(dir, "access.log")
	}
	var buf bytes.Buffer
	if err := nginxConf.Execute(&buf, map[string]any{
		"Root": os.Geteuid() == 0, "Dir": dir, "AccessLog": n.AccessLog, "Upstream": u.Host, "Addr": addr,
	}); err != nil {
		return nil, err
	}
	if err := os.WriteFile(n.conf, buf.Bytes(), 0o644); err != nil {
		return nil, err
	}
	// -p and -e keep nginx away from /etc/nginx and /var/log/nginx even
	// before it has read the configuration.
	out, err := exec.Command(bin, "-p", dir, "-e", filepath.Join(dir, "error.log"), "-c", n.conf).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("start nginx: %v: %s", err, out)
	}
	if err := waitTCP(addr); err != nil {
		n.Stop()
		return nil, fmt.Errorf("nginx: %w", err)
	}
	return n, nil
}

// pids are nginx's master and worker processes.
func (n *nginxProxy) pids() []int {
	data, err := os.ReadFile(filepath.Join(n.dir, "nginx.pid"))
	if err != nil {
		return nil
	}
	master, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		return nil
	}
	out := []int{master}
	children, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", master, master))
	for _, f := range strings.Fields(string(children)) {
		if pid, err := strconv.Atoi(f); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// Stop asks nginx to finish gracefully (-s quit) and waits for its pid file
// to disappear.
func (n *nginxProxy) Stop() {
	_ = exec.Command(n.bin, "-p", n.dir, "-e", filepath.Join(n.dir, "error.log"), "-c", n.conf, "-s", "quit").Run()
	pid := filepath.Join(n.dir, "nginx.pid")
	for i := 0; i < 100 && fileExists(pid); i++ {
		time.Sleep(50 * time.Millisecond)
	}
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }
