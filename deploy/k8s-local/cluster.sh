#!/usr/bin/env bash
# A one-node Kubernetes on this machine, the way Kubernetes' own hack/local-up-cluster.sh runs one: etcd,
# kube-apiserver, kube-controller-manager, kube-scheduler, kubelet and kube-proxy as host processes, the
# pods in a containerd of their own (the host's /usr/bin/containerd and runc, separate socket and state,
# so Docker's is left alone), the CNI bridge + host-local + portmap + firewall plugins from Debian's
# containernetworking-plugins, and CoreDNS as a pod. No image registry is contacted: the pause and
# CoreDNS images are built FROM scratch (build.sh), the suite's images are copied from Docker.
#
# Usage (as root, from anywhere):
#   deploy/k8s-local/cluster.sh up                 build if needed, start, wait for the node and CoreDNS
#   deploy/k8s-local/cluster.sh load IMAGE...      copy images from Docker into the cluster's containerd
#   deploy/k8s-local/cluster.sh down               stop every process it started and clean up after them
#   deploy/k8s-local/cluster.sh status             processes, node and pods
#   deploy/k8s-local/cluster.sh env                prints `export KUBECONFIG=...` and the PATH of kubectl
# NetworkPolicies are enforced by kube-router's firewall (iptables and ipset; needs the ipset tool);
# K8S_LOCAL_NETPOL=0 leaves them admitted but not enforced.
#
# State: .cache/k8s-local/{bin,images,stamps} (built once), .cache/k8s-local/containerd (the runtime's
# content store, so imported images survive a restart), /run/acct-k8s and /var/lib/acct-k8s (per run,
# removed by `down`). Logs of the components: /var/lib/acct-k8s/logs/<name>.log.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
here="${root}/deploy/k8s-local"
cache="${K8S_LOCAL_CACHE:-${root}/.cache/k8s-local}"
bin="${cache}/bin"
run=/run/acct-k8s
state=/var/lib/acct-k8s
logs="${state}/logs"
pids="${run}/pids"
pki="${state}/pki"
kubeconfig="${state}/admin.kubeconfig"
sock="${run}/containerd.sock"
cni_bin="${CNI_BIN_DIR:-/usr/lib/cni}"
node="${K8S_LOCAL_NODE:-acct-node}"
pod_cidr=10.244.0.0/24
cluster_cidr=10.244.0.0/16
service_cidr=10.96.0.0/16
dns_ip=10.96.0.10
api_port=6443
etcd_port=2379
COREDNS_VERSION="${COREDNS_VERSION:-v1.13.2}"
export PAUSE_TAG="${PAUSE_TAG:-registry.k8s.io/pause:3.10.1}"
export COREDNS_IMAGE="${COREDNS_IMAGE:-acct.local/coredns:${COREDNS_VERSION}}"
METRICS_SERVER_VERSION="${METRICS_SERVER_VERSION:-v0.8.0}"
export METRICS_SERVER_IMAGE="${METRICS_SERVER_IMAGE:-acct.local/metrics-server:${METRICS_SERVER_VERSION}}"
export PROBE_IMAGE="${PROBE_IMAGE:-acct.local/tcp-probe:3}"
# 1: enforce NetworkPolicies (kube-router's firewall); 0: they are admitted but not enforced.
NETPOL="${K8S_LOCAL_NETPOL:-1}"
export PATH="${bin}:${PATH}"

log() { printf 'k8s-local: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
kc() { "${bin}/kubectl" --kubeconfig "${kubeconfig}" "$@"; }

# The node's address: the source address of the default route.
host_ip() { ip -4 route get 1.1.1.1 2>/dev/null | sed -n 's/.* src \([0-9.]*\).*/\1/p' | head -1; }

preflight() {
	[[ $(id -u) -eq 0 ]] || die "run as root (kubelet, containerd and the CNI need it)"
	local t
	for t in containerd runc iptables ip openssl; do
		command -v "${t}" >/dev/null || die "'${t}' not found: apt-get install -y containerd runc iptables iproute2 openssl"
	done
	for t in bridge host-local loopback portmap firewall; do
		[[ -x "${cni_bin}/${t}" ]] || die "CNI plugin ${cni_bin}/${t} missing: apt-get install -y containernetworking-plugins"
	done
	command -v conntrack >/dev/null || die "'conntrack' not found: apt-get install -y conntrack"
	if [[ "${NETPOL}" == 1 ]]; then
		command -v ipset >/dev/null || die "'ipset' not found (NetworkPolicy enforcement): apt-get install -y ipset, or K8S_LOCAL_NETPOL=0"
	fi
	modprobe br_netfilter 2>/dev/null || true
	modprobe overlay 2>/dev/null || true
	sysctl -qw net.ipv4.ip_forward=1 || true
	sysctl -qw net.bridge.bridge-nf-call-iptables=1 2>/dev/null || true
	if [[ -f "${pids}/kube-apiserver.pid" ]] && kill -0 "$(cat "${pids}/kube-apiserver.pid")" 2>/dev/null; then
		die "a local cluster is already running (deploy/k8s-local/cluster.sh down first)"
	fi
}

# start NAME CMD...: run in the background in its own session, log and pid under the run folders.
start() {
	local name="$1"
	shift
	setsid "$@" >"${logs}/${name}.log" 2>&1 </dev/null &
	echo $! >"${pids}/${name}.pid"
}

# wait_for WHAT SECONDS CMD...: poll CMD until it succeeds.
wait_for() {
	local what="$1" secs="$2"
	shift 2
	local i
	for ((i = 0; i < secs; i++)); do
		if "$@" >/dev/null 2>&1; then return 0; fi
		sleep 1
	done
	log "timed out after ${secs}s waiting for ${what}"
	return 1
}

alive() { [[ -f "${pids}/$1.pid" ]] && kill -0 "$(cat "${pids}/$1.pid")" 2>/dev/null; }

# --- certificates: one CA for everything, a client certificate per component, the API server's serving one.
gen_pki() {
	local ip="$1"
	mkdir -p "${pki}"
	cd "${pki}"
	openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 30 -subj "/CN=acct-local-ca" 2>/dev/null
	openssl req -x509 -newkey rsa:2048 -nodes -keyout front-proxy-ca.key -out front-proxy-ca.crt -days 30 -subj "/CN=acct-local-front-proxy-ca" 2>/dev/null
	openssl genrsa -out sa.key 2048 2>/dev/null
	openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
	# cert NAME SUBJECT CA [SANS]
	cert() {
		local name="$1" subj="$2" ca="$3" sans="${4:-}"
		openssl req -newkey rsa:2048 -nodes -keyout "${name}.key" -out "${name}.csr" -subj "${subj}" 2>/dev/null
		local ext="${name}.ext"
		if [[ -n "${sans}" ]]; then
			printf 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth,clientAuth\nsubjectAltName=%s\n' "${sans}" >"${ext}"
		else
			printf 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n' >"${ext}"
		fi
		openssl x509 -req -in "${name}.csr" -CA "${ca}.crt" -CAkey "${ca}.key" -CAcreateserial -out "${name}.crt" -days 30 -extfile "${ext}" 2>/dev/null
		rm -f "${name}.csr" "${ext}"
	}
	cert apiserver "/CN=kube-apiserver" ca \
		"DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,DNS:localhost,IP:127.0.0.1,IP:10.96.0.1,IP:${ip}"
	cert kubelet "/CN=${node}" ca "DNS:${node},DNS:localhost,IP:127.0.0.1,IP:${ip}"
	cert apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" ca
	cert admin "/O=system:masters/CN=kubernetes-admin" ca
	cert controller-manager "/CN=system:kube-controller-manager" ca
	cert scheduler "/CN=system:kube-scheduler" ca
	cert kube-proxy "/CN=system:kube-proxy" ca
	cert node-client "/O=system:nodes/CN=system:node:${node}" ca
	cert front-proxy-client "/CN=front-proxy-client" front-proxy-ca
	cd - >/dev/null
}

# kubeconfig FILE CERTNAME
write_kubeconfig() {
	local file="$1" name="$2"
	cat >"${file}" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: local
  cluster:
    server: https://127.0.0.1:${api_port}
    certificate-authority: ${pki}/ca.crt
users:
- name: ${name}
  user:
    client-certificate: ${pki}/${name}.crt
    client-key: ${pki}/${name}.key
contexts:
- name: local
  context: {cluster: local, user: ${name}}
current-context: local
EOF
}

write_configs() {
	local ip="$1"
	mkdir -p "${state}/cni/net.d" "${state}/config"
	cat >"${state}/cni/net.d/10-acct.conflist" <<EOF
{
  "cniVersion": "1.0.0",
  "name": "acct-pods",
  "plugins": [
    {"type": "bridge", "bridge": "acct-cni0", "isGateway": true, "ipMasq": true, "hairpinMode": true,
     "ipam": {"type": "host-local", "ranges": [[{"subnet": "${pod_cidr}"}]], "routes": [{"dst": "0.0.0.0/0"}],
              "dataDir": "${state}/cni/ipam"}},
    {"type": "portmap", "capabilities": {"portMappings": true}},
    {"type": "firewall", "backend": "iptables"}
  ]
}
EOF
	cat >"${state}/config/containerd.toml" <<EOF
version = 2
root = "${cache}/containerd"
state = "${run}/containerd"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]
[grpc]
  address = "${sock}"
[ttrpc]
  address = "${sock}.ttrpc"
[debug]
  address = ""
[metrics]
  address = ""
[plugins."io.containerd.internal.v1.opt"]
  path = "${state}/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "${PAUSE_TAG}"
  # Root here may lack CAP_SYS_RESOURCE (this VM's does): no score below containerd's own.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "${cni_bin}"
    conf_dir = "${state}/cni/net.d"
  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = ""
EOF
	cat >"${state}/config/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
# This machine mounts cgroup v1 (cgroupfs driver); Kubernetes 1.34 still runs on it when told so.
failCgroupV1: false
cgroupDriver: cgroupfs
containerRuntimeEndpoint: unix://${sock}
address: ${ip}
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
tlsCertFile: ${pki}/kubelet.crt
tlsPrivateKeyFile: ${pki}/kubelet.key
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: ${pki}/ca.crt}
authorization: {mode: Webhook}
clusterDomain: cluster.local
clusterDNS: [${dns_ip}]
resolvConf: /etc/resolv.conf
failSwapOn: false
podLogsDir: ${state}/pods-logs
serializeImagePulls: false
imageGCHighThresholdPercent: 100
evictionHard: {memory.available: 100Mi, nodefs.available: 2%, imagefs.available: 2%, nodefs.inodesFree: 2%}
maxPods: 110
podCIDR: ${pod_cidr}
staticPodPath: ""
EOF
	cat >"${state}/config/kube-proxy.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: {kubeconfig: ${state}/kube-proxy.kubeconfig}
mode: iptables
clusterCIDR: ${cluster_cidr}
hostnameOverride: ${node}
bindAddress: 0.0.0.0
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
# Leave the host's conntrack sysctls alone.
conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
EOF
	cat >"${state}/config/scheduler.yaml" <<EOF
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection: {kubeconfig: ${state}/scheduler.kubeconfig}
leaderElection: {leaderElect: false}
EOF
	write_kubeconfig "${kubeconfig}" admin
	write_kubeconfig "${state}/controller-manager.kubeconfig" controller-manager
	write_kubeconfig "${state}/scheduler.kubeconfig" scheduler
	write_kubeconfig "${state}/kube-proxy.kubeconfig" kube-proxy
	write_kubeconfig "${state}/kubelet.kubeconfig" node-client
}

# import_tar FILE: load an image tar into the cluster's containerd (k8s.io namespace, as the kubelet sees it).
import_tar() { ctr --address "${sock}" -n k8s.io images import --all-platforms "$1" >/dev/null; }

# load IMAGE...: copy images from Docker into the cluster's containerd, skipping those already there with
# the same Docker image id (recorded in .cache/k8s-local/loaded).
cmd_load() {
	mkdir -p "${cache}/loaded"
	local img id key
	for img in "$@"; do
		id="$(docker image inspect -f '{{.Id}}' "${img}" 2>/dev/null)" || die "image ${img} is not in Docker (make images / make pg-image)"
		key="${cache}/loaded/$(printf '%s' "${img}" | tr '/:' '__')"
		if [[ -f "${key}" && "$(cat "${key}")" == "${id}" ]] &&
			ctr --address "${sock}" -n k8s.io images ls -q | grep -qx "$(normalize "${img}")"; then
			continue
		fi
		log "loading ${img}"
		docker save "${img}" | ctr --address "${sock}" -n k8s.io images import - >/dev/null
		printf '%s' "${id}" >"${key}"
	done
}

# normalize REF: the name containerd stores for a Docker reference (docker.io/library/ for short names).
normalize() {
	local r="$1"
	case "${r%%/*}" in
	*.* | *:* | localhost) [[ "${r}" == */* ]] && { echo "${r}"; return; } ;;
	esac
	if [[ "${r}" == */* ]]; then echo "docker.io/${r}"; else echo "docker.io/library/${r}"; fi
}

cmd_up() {
	local t0=${SECONDS}
	preflight
	"${here}/build.sh"
	local ip
	ip="$(host_ip)"
	[[ -n "${ip}" ]] || die "no IPv4 default route: cannot pick the node address"
	rm -rf "${state}" "${run}"
	mkdir -p "${logs}" "${pids}" "${state}/etcd" "${state}/kubelet" "${state}/pods-logs" "${cache}/containerd"
	gen_pki "${ip}"
	write_configs "${ip}"
	log "node ${node} at ${ip}; logs in ${logs}"

	start containerd containerd --config "${state}/config/containerd.toml"
	wait_for "containerd" 60 ctr --address "${sock}" version || die "containerd did not start: $(tail -5 "${logs}/containerd.log")"
	import_tar "${cache}/images/pause.tar"
	import_tar "${cache}/images/coredns.tar"
	import_tar "${cache}/images/metrics-server.tar"
	import_tar "${cache}/images/probe.tar"

	start etcd etcd --name local --data-dir "${state}/etcd" \
		--listen-client-urls "http://127.0.0.1:${etcd_port}" --advertise-client-urls "http://127.0.0.1:${etcd_port}" \
		--listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
		--initial-cluster local=http://127.0.0.1:2380 --listen-metrics-urls http://127.0.0.1:2381 \
		--unsafe-no-fsync --quota-backend-bytes 2147483648
	wait_for "etcd" 60 curl -fsS "http://127.0.0.1:2381/health" || die "etcd did not start: $(tail -5 "${logs}/etcd.log")"

	start kube-apiserver kube-apiserver \
		--etcd-servers "http://127.0.0.1:${etcd_port}" \
		--bind-address 0.0.0.0 --secure-port "${api_port}" --advertise-address "${ip}" \
		--service-cluster-ip-range "${service_cidr}" --allow-privileged=true \
		--authorization-mode Node,RBAC --enable-admission-plugins NodeRestriction \
		--client-ca-file "${pki}/ca.crt" --tls-cert-file "${pki}/apiserver.crt" --tls-private-key-file "${pki}/apiserver.key" \
		--kubelet-client-certificate "${pki}/apiserver-kubelet-client.crt" --kubelet-client-key "${pki}/apiserver-kubelet-client.key" \
		--kubelet-certificate-authority "${pki}/ca.crt" --kubelet-preferred-address-types InternalIP,Hostname \
		--service-account-issuer https://kubernetes.default.svc.cluster.local \
		--service-account-key-file "${pki}/sa.pub" --service-account-signing-key-file "${pki}/sa.key" \
		--requestheader-client-ca-file "${pki}/front-proxy-ca.crt" --requestheader-allowed-names front-proxy-client \
		--requestheader-username-headers X-Remote-User --requestheader-group-headers X-Remote-Group \
		--requestheader-extra-headers-prefix X-Remote-Extra- \
		--proxy-client-cert-file "${pki}/front-proxy-client.crt" --proxy-client-key-file "${pki}/front-proxy-client.key" \
		--enable-aggregator-routing=true --profiling=false
	wait_for "kube-apiserver" 120 kc get --raw /readyz || die "kube-apiserver did not become ready: $(tail -20 "${logs}/kube-apiserver.log")"

	start kube-controller-manager kube-controller-manager \
		--kubeconfig "${state}/controller-manager.kubeconfig" \
		--authentication-kubeconfig "${state}/controller-manager.kubeconfig" \
		--authorization-kubeconfig "${state}/controller-manager.kubeconfig" \
		--bind-address 127.0.0.1 --leader-elect=false --use-service-account-credentials=true \
		--service-account-private-key-file "${pki}/sa.key" --root-ca-file "${pki}/ca.crt" \
		--cluster-signing-cert-file "${pki}/ca.crt" --cluster-signing-key-file "${pki}/ca.key" \
		--service-cluster-ip-range "${service_cidr}" --cluster-cidr "${cluster_cidr}" --allocate-node-cidrs=false \
		--controllers '*,bootstrapsigner,tokencleaner' --node-monitor-grace-period 40s
	start kube-scheduler kube-scheduler --config "${state}/config/scheduler.yaml" \
		--authentication-kubeconfig "${state}/scheduler.kubeconfig" --authorization-kubeconfig "${state}/scheduler.kubeconfig" \
		--bind-address 127.0.0.1

	start kubelet kubelet --config "${state}/config/kubelet.yaml" --kubeconfig "${state}/kubelet.kubeconfig" \
		--root-dir "${state}/kubelet" --hostname-override "${node}" --node-ip "${ip}" --v 1
	# Until kube-proxy has programmed a Service, a pod's connection to its address must not leave the host:
	# routed out, it may be answered by whatever is upstream (here a transparent HTTP proxy answered 404, and
	# the services kept that connection alive). Unreachable instead: the client fails fast and retries.
	# Routing comes after kube-proxy's DNAT, so only untranslated packets still carry a Service address.
	ip rule del priority 1096 2>/dev/null || true
	ip rule add priority 1096 iif acct-cni0 to "${service_cidr}" unreachable
	start kube-proxy kube-proxy --config "${state}/config/kube-proxy.yaml"

	wait_for "node ${node} registered" 120 kc get node "${node}" || die "the kubelet did not register: $(tail -30 "${logs}/kubelet.log")"
	kc wait --for=condition=Ready "node/${node}" --timeout=180s || { tail -30 "${logs}/kubelet.log" >&2; die "node ${node} not Ready"; }

	sed -e "s|@COREDNS_IMAGE@|${COREDNS_IMAGE}|g" -e "s|@DNS_IP@|${dns_ip}|g" "${here}/coredns.yaml" | kc apply -f - >/dev/null
	if ! kc -n kube-system rollout status deploy/coredns --timeout=180s; then
		kc -n kube-system describe pods -l k8s-app=kube-dns >&2 || true
		kc -n kube-system logs -l k8s-app=kube-dns --tail=50 >&2 || true
		die "CoreDNS did not become available"
	fi
	# The resource metrics API (HorizontalPodAutoscalers): ready when the aggregator reaches it.
	sed -e "s|@METRICS_SERVER_IMAGE@|${METRICS_SERVER_IMAGE}|g" "${here}/metrics-server.yaml" | kc apply -f - >/dev/null
	if ! kc -n kube-system rollout status deploy/metrics-server --timeout=180s ||
		! kc wait --for=condition=Available apiservice/v1beta1.metrics.k8s.io --timeout=120s; then
		kc -n kube-system describe pods -l k8s-app=metrics-server >&2 || true
		kc -n kube-system logs -l k8s-app=metrics-server --tail=50 >&2 || true
		die "metrics-server did not become available"
	fi
	if [[ "${NETPOL}" == 1 ]]; then
		# Only the NetworkPolicy controller: pod networking stays the bridge CNI's, Services kube-proxy's.
		# It filters the pods' traffic in the FORWARD chain (bridged packets pass iptables:
		# br_netfilter) by ipsets of the pods each policy selects.
		start kube-router kube-router --kubeconfig "${kubeconfig}" --hostname-override "${node}" \
			--run-firewall=true --run-router=false --run-service-proxy=false --enable-cni=false \
			--service-cluster-ip-range "${service_cidr}" --health-port 20244 --metrics-port 0 --iptables-sync-period 1m
		wait_for "kube-router" 60 curl -fsS http://127.0.0.1:20244/healthz ||
			{ tail -30 "${logs}/kube-router.log" >&2; die "kube-router's firewall did not start"; }
		log "NetworkPolicies enforced (kube-router's firewall)"
	else
		log "NetworkPolicies NOT enforced (K8S_LOCAL_NETPOL=0)"
	fi
	log "up in $((SECONDS - t0))s: export KUBECONFIG=${kubeconfig}"
	kc get nodes -o wide
}

# stop NAME [SIGNAL]: stop one of our processes by its pid file and wait for it.
stop() {
	local name="$1" pid i
	[[ -f "${pids}/${name}.pid" ]] || return 0
	pid="$(cat "${pids}/${name}.pid")"
	if kill -0 "${pid}" 2>/dev/null; then
		kill -TERM "${pid}" 2>/dev/null || true
		for ((i = 0; i < 30; i++)); do kill -0 "${pid}" 2>/dev/null || break; sleep 0.5; done
		kill -KILL "${pid}" 2>/dev/null || true
	fi
	rm -f "${pids}/${name}.pid"
}

# drop_chains IPTABLES: remove every chain named CNI-* or KUBE-* and the rules that jump to them.
drop_chains() {
	local ipt="$1" table chain rule
	for table in nat filter mangle; do
		local chains
		chains="$("${ipt}" -t "${table}" -S 2>/dev/null | awk '$1 == "-N" && $2 ~ /^(CNI|KUBE)-/ {print $2}')"
		[[ -n "${chains}" ]] || continue
		"${ipt}" -t "${table}" -S 2>/dev/null | awk '$1 == "-A" {for (i = 1; i < NF; i++) if ($i == "-j" && $(i + 1) ~ /^(CNI|KUBE)-/) {print; break}}' |
			while read -r rule; do eval "${ipt} -t ${table} ${rule/#-A/-D}" 2>/dev/null || true; done
		for chain in ${chains}; do "${ipt}" -t "${table}" -F "${chain}" 2>/dev/null || true; done
		for chain in ${chains}; do "${ipt}" -t "${table}" -X "${chain}" 2>/dev/null || true; done
	done
}

cmd_down() {
	[[ $(id -u) -eq 0 ]] || die "run as root"
	stop kubelet
	# The pods: stopped through the CRI, so the CNI plugins remove their addresses and rules.
	if [[ -S "${sock}" ]] && alive containerd; then
		"${bin}/crictl" --runtime-endpoint "unix://${sock}" --timeout 30s rmp -fa >/dev/null 2>&1 || true
	fi
	stop kube-router
	# Its chains and ipsets (KUBE-ROUTER-*, KUBE-NWPLCY-*, KUBE-POD-FW-*, KUBE-SRC-*, KUBE-DST-*).
	[[ -x "${bin}/kube-router" ]] && "${bin}/kube-router" --cleanup-config >/dev/null 2>&1 || true
	stop kube-proxy
	[[ -x "${bin}/kube-proxy" ]] && "${bin}/kube-proxy" --cleanup >/dev/null 2>&1 || true
	stop kube-scheduler
	stop kube-controller-manager
	stop kube-apiserver
	stop etcd
	stop containerd
	# containerd-shim processes of pods that survived `rmp` (their cgroups and mounts).
	local shim
	for shim in $(pgrep -f "containerd-shim-runc-v2 -namespace k8s.io -id .* -address ${sock}" 2>/dev/null); do
		kill -KILL "${shim}" 2>/dev/null || true
	done
	# Mounts left under our folders (secret tmpfs volumes, overlay roots, netns and shm).
	local m
	for m in $(awk '{print $2}' /proc/self/mounts | grep -E "^(${state}|${run}|${cache}/containerd)" | sort -r); do
		umount -l "${m}" 2>/dev/null || true
	done
	for m in $(awk '{print $2}' /proc/self/mounts | grep -E '^/run/netns/cni-' | sort -r); do
		# Only network namespaces whose sandbox is gone (nothing else on this host uses the CNI).
		umount -l "${m}" 2>/dev/null && rm -f "${m}" || true
	done
	ip link del acct-cni0 2>/dev/null || true
	ip rule del priority 1096 2>/dev/null || true
	# Chains the CNI plugins (portmap, firewall, bridge's masquerade), the kubelet (KUBE-FIREWALL,
	# KUBE-KUBELET-CANARY) made; kube-proxy --cleanup and kube-router --cleanup-config removed their own.
	local ipt
	for ipt in iptables ip6tables; do
		command -v "${ipt}" >/dev/null || continue
		drop_chains "${ipt}"
	done
	# kube-router's ipsets, should it have been killed before removing them (no chain refers to them now).
	if command -v ipset >/dev/null; then
		local set
		for set in $(ipset list -n 2>/dev/null | grep -E '^(inet6:)?KUBE-'); do ipset destroy "${set}" 2>/dev/null || true; done
	fi
	# Pod cgroups the kubelet made under every hierarchy (cgroupfs driver, cgroup v1).
	local d
	for d in /sys/fs/cgroup/*/kubepods; do
		[[ -d "${d}" ]] && find "${d}" -depth -type d -exec rmdir {} + 2>/dev/null || true
	done
	rm -rf "${run}" "${state}"
	log "down"
}

cmd_status() {
	local n
	for n in containerd etcd kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kube-router; do
		if alive "${n}"; then echo "${n}: running (pid $(cat "${pids}/${n}.pid"))"; else echo "${n}: stopped"; fi
	done
	if alive kube-apiserver; then
		kc get nodes -o wide
		kc get pods -A -o wide
	fi
}

case "${1:-}" in
up) cmd_up ;;
down) cmd_down ;;
load)
	shift
	cmd_load "$@"
	;;
status) cmd_status ;;
env) echo "export KUBECONFIG=${kubeconfig} PATH=${bin}:\$PATH PROBE_IMAGE=${PROBE_IMAGE}" ;;
*)
	echo "usage: $0 up|down|load IMAGE...|status|env" >&2
	exit 2
	;;
esac
