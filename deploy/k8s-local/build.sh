#!/usr/bin/env bash
# Builds what the local one-node cluster runs, from the Go module proxy only, into .cache/k8s-local:
#   bin/    kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl (k8s.io/kubernetes),
#           etcd (go.etcd.io/etcd/server/v3), crictl (sigs.k8s.io/cri-tools), coredns, pause,
#           metrics-server (sigs.k8s.io/metrics-server), kube-router (github.com/cloudnativelabs/kube-router,
#           its NetworkPolicy firewall only)
#   images/ pause.tar, coredns.tar, metrics-server.tar, probe.tar (tcp-probe): images FROM scratch with those static binaries, for
#           `ctr images import`
# Each part is skipped when its stamp (the versions it was built from) is current, so a second run costs
# nothing. Every build is a scratch module under .cache/k8s-local/src (never the repository's go.work).
#
# Usage: deploy/k8s-local/build.sh   (run from anywhere; KUBE_VERSION etc. below may be overridden)
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
cache="${K8S_LOCAL_CACHE:-${root}/.cache/k8s-local}"
bin="${cache}/bin"
src="${cache}/src"
images="${cache}/images"
mkdir -p "${bin}" "${src}" "${images}"

# Kubernetes 1.34: kubelet 1.35 and later refuse cgroup v1 hosts by default (failCgroupV1).
KUBE_VERSION="${KUBE_VERSION:-v1.34.4}"
ETCD_VERSION="${ETCD_VERSION:-v3.6.16}"
COREDNS_VERSION="${COREDNS_VERSION:-v1.13.2}"
CRI_TOOLS_VERSION="${CRI_TOOLS_VERSION:-v1.34.0}"
KUBE_ROUTER_VERSION="${KUBE_ROUTER_VERSION:-v2.1.0}"
KUBE_ROUTER_DEPS="${KUBE_ROUTER_DEPS:-golang.org/x/net@v0.62.0 golang.org/x/text@v0.43.0 golang.org/x/oauth2@v0.36.0 google.golang.org/grpc@v1.83.2 google.golang.org/protobuf@v1.36.12 github.com/osrg/gobgp/v3@v3.35.0 github.com/docker/docker@v25.0.13+incompatible}"
METRICS_SERVER_VERSION="${METRICS_SERVER_VERSION:-v0.8.0}"
PAUSE_TAG="${PAUSE_TAG:-registry.k8s.io/pause:3.10.1}"
COREDNS_IMAGE="${COREDNS_IMAGE:-acct.local/coredns:${COREDNS_VERSION}}"
METRICS_SERVER_IMAGE="${METRICS_SERVER_IMAGE:-acct.local/metrics-server:${METRICS_SERVER_VERSION}}"
PROBE_IMAGE="${PROBE_IMAGE:-acct.local/tcp-probe:3}"
# Heavy builds yield to everything else on the machine.
NICE="${NICE:-nice -n 19}"
export GOWORK=off GOFLAGS=-mod=mod CGO_ENABLED=0 GOTOOLCHAIN="${GOTOOLCHAIN:-local}"

log() { printf 'k8s-local build: %s\n' "$*" >&2; }

# fresh NAME STAMP: true when the part NAME was built with the same STAMP.
fresh() { [[ -f "${cache}/stamps/$1" && "$(cat "${cache}/stamps/$1")" == "$2" ]]; }
stamp() { mkdir -p "${cache}/stamps" && printf '%s' "$2" >"${cache}/stamps/$1"; }

# scratch_module NAME [MODULE VERSION]: a module folder of its own under src (never the repository's
# go.work), its go.mod requiring MODULE at VERSION when given; prints the folder.
scratch_module() {
	local dir="${src}/$1"
	mkdir -p "${dir}"
	printf 'module acct.local/%s\n\ngo 1.24.0\n' "${1//-/}" >"${dir}/go.mod"
	[[ $# -lt 3 ]] || printf '\nrequire %s %s\n' "$2" "$3" >>"${dir}/go.mod"
	printf '%s' "${dir}"
}

# --- Kubernetes: one `go build` for every binary, so they share the build cache.
build_kubernetes() {
	local want="${KUBE_VERSION}"
	local b
	for b in kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl; do
		[[ -x "${bin}/${b}" ]] || want="${want} missing"
	done
	if fresh kubernetes "${want% missing*}" && [[ "${want}" != *missing* ]]; then return; fi
	log "kubernetes ${KUBE_VERSION} (cold: 20-30 minutes on 2 cores)"
	local dir="${src}/kubernetes"
	mkdir -p "${dir}"
	local staging="${KUBE_VERSION/v1./v0.}"
	(
		cd "${dir}"
		printf 'module acct.local/k8sbuild\n\ngo 1.24.0\n\nrequire k8s.io/kubernetes %s\n' "${KUBE_VERSION}" >go.mod
		# k8s.io/kubernetes replaces its staging modules with ./staging/...; outside its tree they are
		# the published k8s.io/<name> v0.<minor>.<patch> modules.
		local modfile
		modfile="$(go mod download -json "k8s.io/kubernetes@${KUBE_VERSION}" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
		{
			echo "replace ("
			grep -E '=> \./staging/' "${modfile}" | awk -v v="${staging}" '{print "\t" $1 " => " $1 " " v}'
			echo ")"
		} >>go.mod
		local minor="${KUBE_VERSION#v1.}"
		minor="${minor%%.*}"
		local ld="-s -w"
		local pkg
		for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
			ld="${ld} -X ${pkg}.gitVersion=${KUBE_VERSION} -X ${pkg}.gitMajor=1 -X ${pkg}.gitMinor=${minor} -X ${pkg}.gitTreeState=clean"
		done
		${NICE} go build -trimpath -ldflags "${ld}" -o "${bin}/" \
			k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
			k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubelet \
			k8s.io/kubernetes/cmd/kube-proxy k8s.io/kubernetes/cmd/kubectl
	)
	stamp kubernetes "${KUBE_VERSION}"
}

# --- etcd: its server module's etcdmain behind a two-line main.
build_etcd() {
	if fresh etcd "${ETCD_VERSION}" && [[ -x "${bin}/etcd" ]]; then return; fi
	log "etcd ${ETCD_VERSION}"
	local dir
	dir="$(scratch_module etcd go.etcd.io/etcd/server/v3 "${ETCD_VERSION}")"
	cat >"${dir}/main.go" <<'EOF'
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
EOF
	(cd "${dir}" && go mod tidy && ${NICE} go build -trimpath -ldflags "-s -w" -o "${bin}/etcd" .)
	stamp etcd "${ETCD_VERSION}"
}

# --- crictl, to stop pods cleanly (CNI teardown) and to read logs when the runtime is all that is left.
build_crictl() {
	if fresh crictl "${CRI_TOOLS_VERSION}" && [[ -x "${bin}/crictl" ]]; then return; fi
	log "crictl ${CRI_TOOLS_VERSION}"
	GOBIN="${bin}" ${NICE} go install -trimpath -ldflags "-s -w" "sigs.k8s.io/cri-tools/cmd/crictl@${CRI_TOOLS_VERSION}"
	stamp crictl "${CRI_TOOLS_VERSION}"
}

# --- kube-router: only its NetworkPolicy controller runs (cluster.sh), as a host process: iptables
# rules and ipsets per pod and policy, beside the bridge CNI and kube-proxy.
build_kube_router() {
	if fresh kube-router "${KUBE_ROUTER_VERSION} ${KUBE_ROUTER_DEPS}" && [[ -x "${bin}/kube-router" ]]; then return; fi
	log "kube-router ${KUBE_ROUTER_VERSION}"
	local dir
	dir="$(scratch_module kube-router)"
	# Its release pins dependencies with published vulnerabilities (govulncheck -mode=binary): raised to
	# their fixed versions. What stays flagged has no fix and is code the firewall never runs (the AWS
	# SDK v1, the Docker client).
	(cd "${dir}" && go get "github.com/cloudnativelabs/kube-router/v2/cmd/kube-router@${KUBE_ROUTER_VERSION}" &&
		go get ${KUBE_ROUTER_DEPS} &&
		${NICE} go build -trimpath -ldflags "-s -w" -o "${bin}/kube-router" github.com/cloudnativelabs/kube-router/v2/cmd/kube-router)
	stamp kube-router "${KUBE_ROUTER_VERSION} ${KUBE_ROUTER_DEPS}"
}

# --- metrics-server: the resource metrics API that HorizontalPodAutoscalers read.
build_metrics_server() {
	if fresh metrics-server "${METRICS_SERVER_VERSION}" && [[ -x "${bin}/metrics-server" ]]; then return; fi
	log "metrics-server ${METRICS_SERVER_VERSION}"
	local dir
	dir="$(scratch_module metrics-server)"
	(cd "${dir}" && go get -tool "sigs.k8s.io/metrics-server/cmd/metrics-server@${METRICS_SERVER_VERSION}" &&
		${NICE} go build -trimpath -ldflags "-s -w" -o "${bin}/metrics-server" sigs.k8s.io/metrics-server/cmd/metrics-server)
	stamp metrics-server "${METRICS_SERVER_VERSION}"
}

# --- CoreDNS with only the plugins the cluster's Corefile uses.
build_coredns() {
	if fresh coredns "${COREDNS_VERSION}" && [[ -x "${bin}/coredns" ]]; then return; fi
	log "coredns ${COREDNS_VERSION}"
	local dir
	dir="$(scratch_module coredns github.com/coredns/coredns "${COREDNS_VERSION}")"
	cat >"${dir}/main.go" <<'EOF'
package main

import (
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/forward"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/loadbalance"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/ready"

	"github.com/coredns/coredns/coremain"
)

func main() { coremain.Run() }
EOF
	(cd "${dir}" && go mod tidy && ${NICE} go build -trimpath -ldflags "-s -w" -o "${bin}/coredns" .)
	stamp coredns "${COREDNS_VERSION}"
}

# --- pause: holds a pod's namespaces, reaps orphans, exits on SIGINT/SIGTERM.
build_pause() {
	if fresh pause "1" && [[ -x "${bin}/pause" ]]; then return; fi
	log "pause"
	local dir
	dir="$(scratch_module pause)"
	cat >"${dir}/main.go" <<'EOF'
// pause holds a pod's namespaces: it sleeps until SIGINT or SIGTERM and reaps orphans.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for s := range sig {
		if s != syscall.SIGCHLD {
			os.Exit(0)
		}
		for {
			var ws syscall.WaitStatus
			if pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil); pid <= 0 || err != nil {
				break
			}
		}
	}
}
EOF
	(cd "${dir}" && ${NICE} go build -trimpath -ldflags "-s -w" -o "${bin}/pause" .)
	stamp pause "1"
}

# --- tcp-probe: connects to HOST:PORT once and says what came of it, for the NetworkPolicy checks
# (e2e.sh runs it as a pod).
build_probe() {
	if fresh probe "3" && [[ -x "${bin}/tcp-probe" ]]; then return; fi
	log "tcp-probe"
	local dir
	dir="$(scratch_module probe)"
	cat >"${dir}/main.go" <<'EOF'
// tcp-probe HOST:PORT [TIMEOUT [DELAY]] connects once, after DELAY (the pod's NetworkPolicy rules are
// programmed after it starts): exit 0 connected, 1 refused (ECONNREFUSED: a REJECT rule, or no
// listener), 2 no answer in time, 4 any other failure (no route, a name not found).
package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: tcp-probe HOST:PORT [TIMEOUT [DELAY]]")
		os.Exit(3)
	}
	timeout := 5 * time.Second
	if len(os.Args) > 2 {
		d, err := time.ParseDuration(os.Args[2])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		timeout = d
	}
	if len(os.Args) > 3 {
		d, err := time.ParseDuration(os.Args[3])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		time.Sleep(d)
	}
	c, err := net.DialTimeout("tcp", os.Args[1], timeout)
	var ne net.Error
	switch {
	case err == nil:
		c.Close()
		fmt.Println("connected", os.Args[1])
	case errors.As(err, &ne) && ne.Timeout():
		fmt.Println("timeout", os.Args[1], err)
		os.Exit(2)
	case errors.Is(err, syscall.ECONNREFUSED):
		fmt.Println("refused", os.Args[1], err)
		os.Exit(1)
	default:
		fmt.Println("failed", os.Args[1], err)
		os.Exit(4)
	}
}
EOF
	(cd "${dir}" && ${NICE} go build -trimpath -ldflags "-s -w" -o "${bin}/tcp-probe" .)
	stamp probe "3"
}

# image NAME REF BINARY USER: a FROM-scratch image with /BINARY as entrypoint, saved to images/NAME.tar
# (docker build when Docker answers; the tar is what the cluster's containerd imports).
image() {
	local name="$1" ref="$2" binary="$3" user="$4"
	local sum
	sum="$(sha256sum "${bin}/${binary}" | cut -c1-16)-${ref}"
	if fresh "image-${name}" "${sum}" && [[ -f "${images}/${name}.tar" ]]; then return; fi
	log "image ${ref}"
	local ctx
	ctx="$(mktemp -d)"
	cp "${bin}/${binary}" "${ctx}/${binary}"
	printf 'FROM scratch\nCOPY %s /%s\nUSER %s\nENTRYPOINT ["/%s"]\n' "${binary}" "${binary}" "${user}" "${binary}" >"${ctx}/Dockerfile"
	docker build -q -t "${ref}" "${ctx}" >/dev/null 2>"${ctx}.err" || { cat "${ctx}.err" >&2; exit 1; }
	rm -f "${ctx}.err"
	docker save "${ref}" -o "${images}/${name}.tar"
	rm -rf "${ctx}"
	stamp "image-${name}" "${sum}"
}

build_kubernetes
build_etcd
build_crictl
build_coredns
build_pause
build_metrics_server
build_kube_router
build_probe
image pause "${PAUSE_TAG}" pause 65535:65535
image coredns "${COREDNS_IMAGE}" coredns 0:0
image metrics-server "${METRICS_SERVER_IMAGE}" metrics-server 65534:65534
image probe "${PROBE_IMAGE}" tcp-probe 65534:65534
log "ready in ${bin} and ${images}"
