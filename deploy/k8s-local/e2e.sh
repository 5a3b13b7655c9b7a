#!/usr/bin/env bash
# The chart in a real one-node cluster on this machine (cluster.sh), end to end:
#   1. start the cluster (binaries and images built once into .cache/k8s-local);
#   2. copy the suite's images from Docker into it (`make images`, `make pg-image` built them);
#   3. PostgreSQL and the broker (infra.yaml), then `helm install` of charts/acct with values.yaml: the
#      migration Jobs (pre-install hooks) must finish, then every Deployment must become Available with
#      its probes passing and no container restarted;
#   4. NetworkPolicies enforced (kube-router's firewall): probe pods are let through or stopped as the
#      chart's policies say; then the e2e scenarios (e2e/, remote mode) through the gateway Service's
#      cluster address, under those policies, webhooks to a receiver on the node (the webhooks service's
#      own egress rule to the node's address, services.webhooks.networkPolicy.extraEgress: the receivers
#      listen on ports picked at run time), and a rolling restart of every Deployment under load;
#   5. the gateway's HorizontalPodAutoscaler reads metrics and rescaled; a drain is held by the
#      PodDisruptionBudgets while the API keeps answering;
#   6. on any failure: the state of every pod, the events, and the describe output and logs (current and
#      previous) of every pod that is not Ready or restarted; then the cluster is torn down.
#
# Environment: REGISTRY, TAG (images <REGISTRY>/acct-<name>:<TAG>), PG_IMAGE, HELM_BIN, GO, K8S_E2E_CHART (another
# chart folder, e.g. a copy with a planted defect), K8S_E2E_WAIT (seconds for the release to become
# ready, 300), K8S_E2E_RUN (go test -run pattern), K8S_KEEP=1 (leave the cluster running afterwards),
# E2E_TIMEOUT (20m).
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
here="${root}/deploy/k8s-local"
cluster="${here}/cluster.sh"
REGISTRY="${REGISTRY:-ghcr.io/acctsuite}"
TAG="${TAG:-dev}"
PG_IMAGE="${PG_IMAGE:-acct-postgres-offline:15}"
HELM_BIN="${HELM_BIN:-${root}/.cache/bin/helm}"
VERSITYGW_BIN="${VERSITYGW_BIN:-${root}/.cache/bin/versitygw}"
GO="${GO:-go}"
CHART="${K8S_E2E_CHART:-${root}/charts/acct}"
WAIT="${K8S_E2E_WAIT:-300}"
E2E_TIMEOUT="${E2E_TIMEOUT:-20m}"
ns=acct
release=acct
images=(auth-tokens transactions customers-invoices bills-tags reports mileage webhooks gateway broker)

t0=${SECONDS}
phase() { printf '\n=== k8s-e2e [%4ss] %s\n' "$((SECONDS - t0))" "$*" >&2; }
die() { printf 'k8s-e2e: FAIL: %s\n' "$*" >&2; exit 1; }

eval "$("${cluster}" env)"
kc() { kubectl "$@"; }
watch_pid=""
s3_pid=""
work="$(mktemp -d)"

# dump: what an operator needs to see why the release is not healthy.
dump() {
	phase "diagnostics"
	kc get nodes -o wide || true
	kc get pods -A -o wide || true
	echo "--- events (${ns})"
	kc -n "${ns}" get events --sort-by=.lastTimestamp 2>/dev/null | tail -60 || true
	local p
	for p in $(kc -n "${ns}" get pods -o go-template='{{range .items}}{{$ready := false}}{{range .status.conditions}}{{if and (eq .type "Ready") (eq .status "True")}}{{$ready = true}}{{end}}{{end}}{{$restarts := 0}}{{range .status.containerStatuses}}{{$restarts = .restartCount}}{{end}}{{if or (not $ready) (gt $restarts 0)}}{{if ne .status.phase "Succeeded"}}{{.metadata.name}} {{end}}{{end}}{{end}}' 2>/dev/null); do
		echo "--- pod ${p}: describe"
		kc -n "${ns}" describe pod "${p}" | sed -n '/^Containers:/,$p' || true
		echo "--- pod ${p}: logs"
		kc -n "${ns}" logs "${p}" --all-containers --tail=80 || true
		echo "--- pod ${p}: logs of the previous container"
		kc -n "${ns}" logs "${p}" --all-containers --previous --tail=80 2>/dev/null || echo "(none)"
	done
	kc -n kube-system get pods -o wide 2>/dev/null || true
}

finish() {
	local rc=$?
	[[ -n "${watch_pid}" ]] && kill ${watch_pid} 2>/dev/null || true
	[[ -n "${s3_pid}" ]] && kill "${s3_pid}" 2>/dev/null || true
	if [[ ${rc} -ne 0 ]]; then
		dump 2>&1 || true
	fi
	rm -rf "${work}"
	if [[ "${K8S_KEEP:-0}" == 1 ]]; then
		phase "cluster left running (K8S_KEEP=1): ${cluster} down to stop it; $("${cluster}" env)"
	else
		phase "teardown"
		"${cluster}" down || true
	fi
	if [[ ${rc} -eq 0 ]]; then phase "PASS in $((SECONDS - t0))s"; else phase "FAIL (exit ${rc}) after $((SECONDS - t0))s"; fi
	exit "${rc}"
}

# Before anything starts: the inputs.
[[ -x "${HELM_BIN}" ]] || die "helm missing at ${HELM_BIN} (make helm)"
[[ -x "${VERSITYGW_BIN}" ]] || die "versitygw missing at ${VERSITYGW_BIN} (make versitygw)"
for i in "${images[@]}"; do
	docker image inspect "${REGISTRY}/acct-${i}:${TAG}" >/dev/null 2>&1 || die "image ${REGISTRY}/acct-${i}:${TAG} missing (make images)"
done
docker image inspect "${PG_IMAGE}" >/dev/null 2>&1 || die "image ${PG_IMAGE} missing (make pg-image)"

trap finish EXIT
phase "cluster up"
"${cluster}" up

phase "images into the cluster"
"${cluster}" load "${PG_IMAGE}" $(printf "${REGISTRY}/acct-%s:${TAG} " "${images[@]}")

phase "PostgreSQL and the broker"
kc create namespace "${ns}" --dry-run=client -o yaml | kc apply -f - >/dev/null
pg_password="$(openssl rand -hex 16)"
sed -e "s|@PG_PASSWORD@|${pg_password}|g" -e "s|@PG_IMAGE@|${PG_IMAGE}|g" \
	-e "s|@BROKER_IMAGE@|${REGISTRY}/acct-broker:${TAG}|g" "${here}/infra.yaml" | kc apply -f - >/dev/null
kc -n "${ns}" rollout status deploy/acct-postgres --timeout=180s
kc -n "${ns}" rollout status deploy/acct-broker --timeout=180s

phase "object storage: versitygw on the node's address"
# On the host, not in the cluster: pre-signed URLs name the endpoint, and both the pods and the e2e
# suite on this machine must reach it at the same address.
node_ip="$(ip -4 route get 1.1.1.1 | sed -n 's/.* src \([0-9.]*\).*/\1/p' | head -1)"
s3_port="${K8S_E2E_S3_PORT:-7070}"
s3_key="acct-local"
s3_secret="$(openssl rand -hex 20)"
mkdir -p "${work}/s3"
ROOT_ACCESS_KEY_ID="${s3_key}" ROOT_SECRET_ACCESS_KEY="${s3_secret}" \
	"${VERSITYGW_BIN}" --port "${node_ip}:${s3_port}" --region us-east-1 --quiet posix "${work}/s3" >"${work}/versitygw.log" 2>&1 &
s3_pid=$!
empty_sha=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
for ((i = 0; i < 30; i++)); do
	curl -fsS -o /dev/null -X PUT -H "x-amz-content-sha256: ${empty_sha}" --aws-sigv4 "aws:amz:us-east-1:s3" \
		-u "${s3_key}:${s3_secret}" "http://${node_ip}:${s3_port}/acct-files" 2>/dev/null && break
	sleep 1
done
((i < 30)) || { cat "${work}/versitygw.log" >&2; die "versitygw did not start on ${node_ip}:${s3_port}"; }

phase "helm install ${release} (${CHART})"
# Every Job and Deployment of the namespace as the cluster reports it, with the time, to check the order.
cols='custom-columns=CREATED:.metadata.creationTimestamp,NAME:.metadata.name,COMPLETED:.status.completionTime'
kc -n "${ns}" get jobs --watch -o "${cols}" --no-headers >"${work}/watch-jobs.log" 2>&1 &
watch_pid=$!
kc -n "${ns}" get deployments --watch -o "${cols}" --no-headers >"${work}/watch-deploy.log" 2>&1 &
watch_pid="${watch_pid} $!"
"${HELM_BIN}" install "${release}" "${CHART}" -n "${ns}" -f "${here}/values.yaml" \
	--set global.image.registry="${REGISTRY}" --set global.image.tag="${TAG}" \
	--set storage.enabled=true --set storage.bucket=acct-files --set storage.region=us-east-1 \
	--set storage.endpoint="http://${node_ip}:${s3_port}" --set storage.forcePathStyle=true \
	--set storage.credentials.accessKeyId="${s3_key}" --set storage.credentials.secretAccessKey="${s3_secret}" \
	--set-json "services.webhooks.networkPolicy={\"extraEgress\":[{\"to\":[{\"ipBlock\":{\"cidr\":\"${node_ip}/32\"}}]}]}" \
	--timeout 10m

phase "waiting for every Deployment (at most ${WAIT}s)"
deadline=$((SECONDS + WAIT))
while :; do
	# Waiting on is pointless once a container crash-loops or its image is missing.
	bad="$(kc -n "${ns}" get pods -o go-template='{{range .items}}{{range .status.containerStatuses}}{{with .state.waiting}}{{if or (eq .reason "CrashLoopBackOff") (eq .reason "ErrImageNeverPull") (eq .reason "CreateContainerConfigError") (eq .reason "InvalidImageName")}}{{$.kind}}{{end}}{{end}}{{end}}{{end}}' 2>/dev/null || true)"
	[[ -z "${bad}" ]] || die "a container cannot start (CrashLoopBackOff or image/config error)"
	not_ready="$(kc -n "${ns}" get deploy -o go-template='{{range .items}}{{if ne (printf "%v" .status.availableReplicas) (printf "%v" .spec.replicas)}}{{.metadata.name}} {{end}}{{end}}')"
	[[ -n "${not_ready}" ]] || break
	if ((SECONDS > deadline)); then die "Deployments not Available after ${WAIT}s: ${not_ready}"; fi
	sleep 3
done
kc -n "${ns}" get deploy,pods -o wide

phase "checks"
kill ${watch_pid} 2>/dev/null || true
watch_pid=""
# 1. The migration Jobs completed before the first Deployment of the release was created.
last_job="$(awk '$3 != "<none>" {print $3}' "${work}/watch-jobs.log" | sort | tail -1)"
first_deploy="$(awk '$2 !~ /^acct-(postgres|broker)$/ {print $1}' "${work}/watch-deploy.log" | sort | head -1)"
jobs_done="$(awk '$3 != "<none>" {print $2}' "${work}/watch-jobs.log" | sort -u | wc -l)"
show_watch() { echo "--- Jobs (created, name, completed)"; cat "${work}/watch-jobs.log"; echo "--- Deployments (created, name)"; cat "${work}/watch-deploy.log"; } >&2
[[ "${jobs_done}" -ge 7 ]] || { show_watch; die "expected 7 completed migration Jobs, saw ${jobs_done}"; }
[[ -n "${first_deploy}" ]] && [[ ! "${first_deploy}" < "${last_job}" ]] ||
	{ show_watch; die "a Deployment was created (${first_deploy}) before the last migration Job completed (${last_job})"; }
echo "ok: ${jobs_done} migration Jobs completed (last ${last_job}) before the Deployments were created (first ${first_deploy})"
# 2. Every pod of the release Ready, with its probes passing, and no container restarted.
restarts="$(kc -n "${ns}" get pods -l app.kubernetes.io/instance="${release}" -o go-template='{{range .items}}{{range .status.containerStatuses}}{{if gt .restartCount 0}}{{.name}}={{.restartCount}} {{end}}{{end}}{{end}}')"
[[ -z "${restarts}" ]] || die "containers restarted: ${restarts}"
echo "ok: every Deployment Available, every pod Ready, no restarts"

phase "NetworkPolicies enforced"
# Probes (tcp-probe pods, each connecting once a few seconds after it starts, once its rules are in
# place) show that the policies are enforced, not only admitted: a pod outside the release reaches the
# gateway but no internal service; a pod with the mileage service's labels (its policy) reaches the
# token service (JWKS) but neither another service nor the node's API server, which a pod without a
# policy reaches. The scenarios that follow pass through these policies.
if [[ "${K8S_LOCAL_NETPOL:-1}" == 1 ]]; then
	# probe NAME LABELS TARGET WANT: WANT is connected or blocked (refused by a REJECT rule, or no answer;
	# any other failure, such as no route to an address no Service port maps, is neither).
	probe() {
		local name="$1" labels="$2" target="$3" want="$4" code="" i out
		kc -n "${ns}" run "np-${name}" --image="${PROBE_IMAGE}" --image-pull-policy=Never --restart=Never \
			--labels="${labels}" -- "${target}" 4s 6s >/dev/null
		for ((i = 0; i < 60; i++)); do
			code="$(kc -n "${ns}" get pod "np-${name}" -o jsonpath='{.status.containerStatuses[0].state.terminated.exitCode}' 2>/dev/null || true)"
			[[ -n "${code}" ]] && break
			sleep 1
		done
		out="$(kc -n "${ns}" logs "np-${name}" 2>&1 || true)"
		kc -n "${ns}" delete pod "np-${name}" --wait=false >/dev/null 2>&1 || true
		case "${want}:${code}" in
		connected:0 | blocked:1 | blocked:2) echo "ok: ${name}: ${out}" ;;
		*) die "probe ${name} (${labels} -> ${target}): want ${want}, got exit ${code:-none}: ${out}" ;;
		esac
	}
	mileage_labels="app.kubernetes.io/name=mileage,app.kubernetes.io/instance=${release},app.kubernetes.io/component=server"
	probe outsider-gateway "acct-probe=outsider" "${release}-gateway:80" connected
	probe outsider-reports "acct-probe=outsider" "${release}-reports:80" blocked
	probe outsider-apiserver "acct-probe=outsider" "${node_ip}:6443" connected
	probe mileage-auth "${mileage_labels}" "${release}-auth-tokens:80" connected
	probe mileage-reports "${mileage_labels}" "${release}-reports:80" blocked
	probe mileage-apiserver "${mileage_labels}" "${node_ip}:6443" blocked
else
	echo "skipped: K8S_LOCAL_NETPOL=0 (the cluster admits NetworkPolicies without enforcing them)"
fi

phase "e2e scenarios through the gateway Service"
# The Service's cluster address, reached from the node through kube-proxy's rules as a pod would reach
# it: unlike a port-forward (one pod), it follows the gateway's pods through the rolling restarts.
gw_ip="$(kc -n "${ns}" get svc "${release}-gateway" -o jsonpath='{.spec.clusterIP}')"
gw_port="$(kc -n "${ns}" get svc "${release}-gateway" -o jsonpath='{.spec.ports[0].port}')"
gw="http://${gw_ip}:${gw_port}"
for ((i = 0; i < 30; i++)); do
	curl -fsS -m 5 "${gw}/readyz" >/dev/null 2>&1 && break
	sleep 1
done
curl -fsS -m 5 "${gw}/readyz" >/dev/null || die "the gateway does not answer at its Service address ${gw}"
e2e_log="${root}/.cache/k8s-local/e2e.log"
client_id="$(kc -n "${ns}" get secret "${release}-auth-tokens" -o jsonpath='{.data.BOOTSTRAP_CLIENT_ID}' | base64 -d)"
client_secret="$(kc -n "${ns}" get secret "${release}-auth-tokens" -o jsonpath='{.data.BOOTSTRAP_CLIENT_SECRET}' | base64 -d)"
# The webhook scenarios' receivers listen on this machine, which the pods reach at the node's address;
# the rolling-restart scenario restarts every Deployment of the release under load.
(
	cd "${root}/e2e"
	E2E_BASE_URL="${gw}" E2E_CLIENT_ID="${client_id}" E2E_CLIENT_SECRET="${client_secret}" E2E_RECEIVER_HOST="${node_ip}" \
		E2E_K8S_NAMESPACE="${ns}" E2E_K8S_SELECTOR="app.kubernetes.io/instance=${release}" E2E_KUBECTL="$(command -v kubectl)" \
		TESTCONTAINERS_RYUK_DISABLED=true "${GO}" test -count=1 -timeout "${E2E_TIMEOUT}" -v ${K8S_E2E_RUN:+-run "${K8S_E2E_RUN}"} ./...
) >"${e2e_log}" 2>&1 || true
grep -E '^\s*(--- (PASS|FAIL|SKIP)|PASS|FAIL|ok |panic)' "${e2e_log}" || true
if grep -qE '^(--- FAIL|FAIL)' "${e2e_log}"; then
	echo "--- what the failing scenarios said (whole output: ${e2e_log})" >&2
	grep -E '_test\.go:[0-9]+:|--- FAIL|panic:' "${e2e_log}" | grep -v -- '--- PASS' | head -150 >&2
	# The pods may all be Ready (the diagnostics below show only those that are not): what the services
	# warned of, and what PostgreSQL is doing (a transaction left open, a lock waited on).
	for d in $(kc -n "${ns}" get deploy -l "app.kubernetes.io/instance=${release}" -o jsonpath='{.items[*].metadata.name}'); do
		echo "--- ${d}: warnings and errors (last 40)" >&2
		kc -n "${ns}" logs "deploy/${d}" --all-containers --tail=2000 2>/dev/null | grep -E '"level":"(WARN|ERROR)"' | tail -40 >&2 || true
	done
	echo "--- PostgreSQL: sessions in a transaction" >&2
	kc -n "${ns}" exec deploy/acct-postgres -- psql -U acct -d acct -X -c "SELECT datname, pid, state, now() - xact_start AS in_tx,
		wait_event_type, wait_event, left(query, 160) AS query FROM pg_stat_activity WHERE xact_start IS NOT NULL ORDER BY xact_start" >&2 || true
	die "e2e scenarios failed"
fi
grep -qE '^ok ' "${e2e_log}" || { tail -50 "${e2e_log}" >&2; die "the e2e suite did not run (${e2e_log})"; }
# After the scenarios: still no restarts (a liveness probe that fails under load shows here).
restarts="$(kc -n "${ns}" get pods -l app.kubernetes.io/instance="${release}" -o go-template='{{range .items}}{{range .status.containerStatuses}}{{if gt .restartCount 0}}{{.name}}={{.restartCount}} {{end}}{{end}}{{end}}')"
[[ -z "${restarts}" ]] || die "containers restarted during the scenarios: ${restarts}"
echo "ok: e2e scenarios passed, no restarts"
grep -E 'rollout_test\.go:[0-9]+: (load|restarted|P&L|Customer)' "${e2e_log}" | sed 's/^ */  /' || true

phase "HorizontalPodAutoscaler reads metrics and scales"
# metrics-server (cluster.sh) serves the resource metrics API; the gateway's HPA must read a CPU figure
# with ScalingActive.
hpa="${release}-gateway"
for ((i = 0; i < 40; i++)); do
	active="$(kc -n "${ns}" get hpa "${hpa}" -o jsonpath='{.status.conditions[?(@.type=="ScalingActive")].status}')"
	cpu="$(kc -n "${ns}" get hpa "${hpa}" -o jsonpath='{.status.currentMetrics[0].resource.current.averageUtilization}')"
	[[ "${active}" == True && -n "${cpu}" ]] && break
	sleep 3
done
kc -n "${ns}" get hpa
[[ "${active}" == True && -n "${cpu}" ]] ||
	{ kc -n "${ns}" describe hpa "${hpa}" >&2; die "HPA ${hpa} reads no metrics (ScalingActive=${active:-unknown}, CPU ${cpu:-none})"; }
echo "ok: HPA ${hpa} reads CPU ${cpu}% of its request (ScalingActive)"
token="$(curl -fsS -m 10 -u "${client_id}:${client_secret}" -d grant_type=client_credentials -d "client_id=${client_id}" \
	"${gw}/oauth2/token" | sed -n 's/.*"access_token":"\([^"]*\)".*/\1/p')"
[[ -n "${token}" ]] || die "no platform token from ${gw}/oauth2/token"
# It must have scaled up for CPU: under the scenarios' load, or else under four request loops of its own.
upscales() {
	kc -n "${ns}" get events --field-selector "involvedObject.kind=HorizontalPodAutoscaler,involvedObject.name=${hpa},reason=SuccessfulRescale" \
		-o jsonpath='{range .items[*]}{.message}{"\n"}{end}' | grep 'above target' || true
}
rescales="$(upscales)"
if [[ -z "${rescales}" ]]; then
	echo "no upscale under the scenarios' load; loading the gateway (at most 150s)"
	for ((l = 0; l < 4; l++)); do
		(while :; do curl -s -o /dev/null -m 5 -H "Authorization: Bearer ${token}" "${gw}/v1/businesses?limit=1"; done) >/dev/null 2>&1 &
		watch_pid="${watch_pid} $!"
	done
	for ((i = 0; i < 30; i++)); do
		rescales="$(upscales)"
		[[ -z "${rescales}" ]] || break
		sleep 5
	done
	kill ${watch_pid} 2>/dev/null || true
	watch_pid=""
fi
[[ -n "${rescales}" ]] || { kc -n "${ns}" describe hpa "${hpa}" >&2; die "HPA ${hpa} did not scale up under load"; }
echo "ok: HPA ${hpa} scaled up under load:"
sed 's/^/  /' <<<"${rescales}"

phase "drain: the PodDisruptionBudgets hold"
# Two replicas of every Deployment, then a drain of the (only) node limited to the release's pods: each
# Deployment may lose one pod (maxUnavailable 1); its replacement cannot be scheduled on the cordoned
# node, so evicting the second must be refused until the drain gives up. The API keeps answering
# throughout.
selector="app.kubernetes.io/instance=${release}"
for d in $(kc -n "${ns}" get deploy -l "${selector}" -o jsonpath='{.items[*].metadata.name}'); do
	[[ "${d}" == "${hpa}" ]] || kc -n "${ns}" scale "deploy/${d}" --replicas=2 >/dev/null
done
for d in $(kc -n "${ns}" get deploy -l "${selector}" -o jsonpath='{.items[*].metadata.name}'); do
	kc -n "${ns}" rollout status "deploy/${d}" --timeout=180s >/dev/null || die "deploy/${d} did not reach 2 replicas"
done
probe_log="${work}/drain-probe.log"
(
	while :; do
		printf '%s %s\n' "$(date +%s.%N)" "$(curl -s -o /dev/null -m 5 -w '%{http_code}' -H "Authorization: Bearer ${token}" "${gw}/v1/businesses?limit=1")"
		sleep 0.2
	done
) >"${probe_log}" 2>&1 &
probe_pid=$!
watch_pid="${probe_pid}"
node="$(kc get nodes -o jsonpath='{.items[0].metadata.name}')"
drain_rc=0
kc drain "${node}" --pod-selector="${selector}" --ignore-daemonsets --delete-emptydir-data --timeout=60s >"${work}/drain.log" 2>&1 || drain_rc=$?
available="$(kc -n "${ns}" get deploy -l "${selector}" -o go-template='{{range .items}}{{.metadata.name}}={{.status.availableReplicas}} {{end}}')"
kc uncordon "${node}" >/dev/null
kill "${probe_pid}" 2>/dev/null || true
watch_pid=""
sed 's/^/  /' "${work}/drain.log" | grep -E 'evicted|disruption budget|timeout' | sort | uniq -c | sort -rn | head -20 || true
[[ ${drain_rc} -ne 0 ]] || die "the drain evicted every pod of the release: no PodDisruptionBudget held"
grep -q "violate the pod's disruption budget" "${work}/drain.log" || { cat "${work}/drain.log" >&2; die "the drain failed for another reason than a disruption budget"; }
for a in ${available}; do
	[[ "${a#*=}" =~ ^[1-9] ]] || die "during the drain, ${a%%=*} had no available replica (${available})"
done
echo "ok: the drain evicted one pod per Deployment and no more; available during it: ${available}"
bad="$(awk '$2 !~ /^2/' "${probe_log}" | wc -l)"
total="$(wc -l <"${probe_log}")"
[[ "${bad}" -eq 0 ]] || { awk '$2 !~ /^2/' "${probe_log}" | head -20 >&2; die "${bad} of ${total} API requests failed during the drain"; }
echo "ok: ${total} API requests during the drain, all answered 2xx"
for d in $(kc -n "${ns}" get deploy -l "${selector}" -o jsonpath='{.items[*].metadata.name}'); do
	kc -n "${ns}" rollout status "deploy/${d}" --timeout=180s >/dev/null || die "deploy/${d} did not recover after the uncordon"
done
echo "ok: every Deployment back to full strength after the uncordon"
