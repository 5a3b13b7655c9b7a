package chartcheck

import (
	"encoding/base64"
	"net"
	"net/netip"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
)

// Addresses probed against the NetworkPolicies: public ones on both families, and one in every
// range the webhooks service must never reach (the private, shared and link-local ranges, with the
// cloud metadata address).
var (
	publicAddrs  = []netip.Addr{netip.MustParseAddr("8.8.8.8"), netip.MustParseAddr("2001:4860:4860::8888")}
	privateAddrs = []netip.Addr{
		netip.MustParseAddr("10.96.0.1"), netip.MustParseAddr("172.20.3.4"), netip.MustParseAddr("192.168.1.10"),
		netip.MustParseAddr("169.254.169.254"), netip.MustParseAddr("100.100.100.200"),
		netip.MustParseAddr("fd00:ec2::254"), netip.MustParseAddr("fe80::1"),
	}
)

// servicePolicies maps each service to its own NetworkPolicy (not the migration Job's).
func servicePolicies(objs []Object) map[string]*networkingv1.NetworkPolicy {
	out := map[string]*networkingv1.NetworkPolicy{}
	for _, o := range objs {
		if np, ok := o.Typed.(*networkingv1.NetworkPolicy); ok && np.Labels["app.kubernetes.io/component"] != "migrate" {
			out[np.Labels[labelName]] = np
		}
	}
	return out
}

// allowsEgress tells whether the policy lets its pods open a TCP connection to addr:port outside the
// cluster: some egress rule matches the port (no ports: every port) and the address (no peers:
// every address; an ipBlock: inside its cidr and outside its excepts; pod and namespace selectors
// never match an address outside the cluster).
func allowsEgress(np *networkingv1.NetworkPolicy, addr netip.Addr, port int32) bool {
	for _, r := range np.Spec.Egress {
		if !rulePortMatches(r.Ports, port) {
			continue
		}
		if len(r.To) == 0 {
			return true
		}
		for _, peer := range r.To {
			if peer.IPBlock != nil && inBlock(peer.IPBlock, addr) {
				return true
			}
		}
	}
	return false
}

func rulePortMatches(ports []networkingv1.NetworkPolicyPort, port int32) bool {
	if len(ports) == 0 {
		return true
	}
	for _, p := range ports {
		if p.Protocol != nil && *p.Protocol != corev1.ProtocolTCP {
			continue
		}
		if p.Port == nil {
			return true
		}
		end := p.Port.IntVal
		if p.EndPort != nil {
			end = *p.EndPort
		}
		if port >= p.Port.IntVal && port <= end {
			return true
		}
	}
	return false
}

func inBlock(b *networkingv1.IPBlock, addr netip.Addr) bool {
	cidr, err := netip.ParsePrefix(b.CIDR)
	if err != nil || !cidr.Contains(addr) {
		return false
	}
	for _, e := range b.Except {
		if p, err := netip.ParsePrefix(e); err == nil && p.Contains(addr) {
			return false
		}
	}
	return true
}

// openPorts lists every TCP port on which the policy lets its pods reach addr.
func openPorts(np *networkingv1.NetworkPolicy, addr netip.Addr) []int32 {
	var out []int32
	for port := int32(1); port <= 65535; port++ {
		if allowsEgress(np, addr, port) {
			out = append(out, port)
		}
	}
	return out
}

// infraPorts are the ports every service reaches at any address (where DNS, PostgreSQL and Kafka
// are is not known to the chart): the defaults of networkPolicy.
var infraPorts = []int32{53, 5432, 9092}

// infraPortsOf are the ports every service reaches at any address in a
// value set: DNS, PostgreSQL unless its peers are named (the chart's
// CloudNativePG pods, or networkPolicy.peers.postgresql), and the port of
// the brokers the Deployments name (KAFKA_BROKERS) unless theirs are,
// sorted.
func infraPortsOf(t *testing.T, envs map[string]map[string]corev1.EnvVar, values map[string]any) []int32 {
	t.Helper()
	named := func(peers string, bundled ...string) bool {
		if l, _ := dig(values, "networkPolicy", "peers", peers).([]any); len(l) > 0 {
			return true
		}
		return dig(values, bundled...) == true
	}
	ports := []int32{53}
	if !named("postgresql", "postgresql", "cnpg", "enabled") {
		ports = append(ports, 5432)
	}
	if named("kafka", "kafka", "strimzi", "enabled") {
		return ports
	}
	for _, env := range envs {
		for _, b := range strings.Split(env["KAFKA_BROKERS"].Value, ",") {
			if b == "" {
				continue
			}
			_, p, err := net.SplitHostPort(b)
			if err != nil {
				t.Fatalf("KAFKA_BROKERS entry %q: %v", b, err)
			}
			n, err := strconv.Atoi(p)
			if err != nil {
				t.Fatalf("KAFKA_BROKERS entry %q: %v", b, err)
			}
			if !slices.Contains(ports, int32(n)) {
				ports = append(ports, int32(n))
			}
		}
	}
	slices.Sort(ports)
	return ports
}

// storageEgressPort is the object-storage port a storage service reaches at any address (from its
// S3_ENDPOINT, 443 for AWS S3), or 0 without storage.
func storageEgressPort(t *testing.T, env map[string]corev1.EnvVar) int32 {
	t.Helper()
	if env["STORAGE_BACKEND"].Value != "s3" {
		return 0
	}
	ep := env["S3_ENDPOINT"].Value
	if ep == "" {
		return 443
	}
	u, err := url.Parse(ep)
	if err != nil {
		t.Fatalf("S3_ENDPOINT %q: %v", ep, err)
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil {
			t.Fatal(err)
		}
		return int32(n)
	}
	if u.Scheme == "http" {
		return 80
	}
	return 443
}

// TestChartWebhooksService: the webhooks service is rendered like the other database services
// (Deployment, Service, PDB, HPA when autoscaling is on, KEDA on lag, migration Job), the gateway
// routes to it, its delivery settings have their safe defaults, and its secret key comes from a
// Secret, generated once (base64 of 32 bytes) or an existing one.
func TestChartWebhooksService(t *testing.T) {
	objs := render(t, writeValues(t, "services: {webhooks: {autoscaling: {enabled: true, minReplicas: 2, maxReplicas: 5}}}"))
	var (
		dep    *appsv1.Deployment
		svc    *corev1.Service
		pdb    *policyv1.PodDisruptionBudget
		hpa    *autoscalingv2.HorizontalPodAutoscaler
		job    *batchv1.Job
		secret *corev1.Secret
	)
	for _, o := range objs {
		if o.Labels[labelName] != "webhooks" {
			continue
		}
		switch x := o.Typed.(type) {
		case *appsv1.Deployment:
			dep = x
		case *corev1.Service:
			svc = x
		case *policyv1.PodDisruptionBudget:
			pdb = x
		case *autoscalingv2.HorizontalPodAutoscaler:
			hpa = x
		case *batchv1.Job:
			job = x
		case *corev1.Secret:
			secret = x
		}
	}
	if dep == nil || svc == nil || pdb == nil || hpa == nil || job == nil || secret == nil {
		t.Fatalf("webhooks: Deployment %v, Service %v, PDB %v, HPA %v, Job %v, Secret %v", dep != nil, svc != nil, pdb != nil, hpa != nil, job != nil, secret != nil)
	}
	if err := Check(objs); err != nil {
		t.Fatalf("policy violations:\n%v", err)
	}
	c := dep.Spec.Template.Spec.Containers[0]
	if dep.Name != "acct-webhooks" || c.Image != "ghcr.io/acctsuite/acct-webhooks:dev" {
		t.Errorf("Deployment %s, image %s", dep.Name, c.Image)
	}
	if hpa.Spec.ScaleTargetRef.Name != "acct-webhooks" || hpa.Spec.MaxReplicas != 5 || dep.Spec.Replicas != nil {
		t.Errorf("HPA targets %s (max %d); Deployment replicas %v (want unset under the HPA)", hpa.Spec.ScaleTargetRef.Name, hpa.Spec.MaxReplicas, dep.Spec.Replicas)
	}
	if pdb.Spec.MaxUnavailable == nil || pdb.Spec.MaxUnavailable.IntValue() != 1 {
		t.Errorf("PDB maxUnavailable %v", pdb.Spec.MaxUnavailable)
	}
	if job.Spec.Template.Spec.Containers[0].Args[0] != "migrate" {
		t.Errorf("Job args %v", job.Spec.Template.Spec.Containers[0].Args)
	}

	envs := workloadEnv(objs)
	if got := envs["Deployment/gateway"]["UPSTREAM_WEBHOOKS_URL"].Value; got != "http://acct-webhooks" {
		t.Errorf("gateway UPSTREAM_WEBHOOKS_URL %q", got)
	}
	defaults := map[string]string{
		"WEBHOOKS_ALLOW_PRIVATE": "false", "WEBHOOKS_ALLOW_HTTP": "false", "WEBHOOKS_TIMEOUT": "15s",
		"WEBHOOKS_CONCURRENCY": "64", "WEBHOOKS_PER_ENDPOINT": "8", "WEBHOOKS_DISPATCH": "true",
		"DB_SCHEMA": "webhooks", "MIGRATE_ON_START": "false", "KAFKA_BROKERS": "kafka:9092",
		"JWKS_URL": "http://acct-auth-tokens/.well-known/jwks.json",
	}
	// The migration Job loads the same configuration, which requires the key.
	for _, workload := range []string{"Deployment/webhooks", "Job/webhooks"} {
		env := envs[workload]
		for k, want := range defaults {
			if e, ok := env[k]; !ok || e.Value != want || e.ValueFrom != nil {
				t.Errorf("%s: %s = %+v, want %q", workload, k, e, want)
			}
		}
		for _, k := range []string{"WEBHOOKS_SECRET_KEY", "PAGE_CURSOR_SECRET"} {
			ref := env[k].ValueFrom
			if env[k].Value != "" || ref == nil || ref.SecretKeyRef == nil || ref.SecretKeyRef.Name != "acct-webhooks" || ref.SecretKeyRef.Key != k {
				t.Errorf("%s: %s = %+v, want secretKeyRef acct-webhooks/%s", workload, k, env[k], k)
			}
		}
		if ref := env["DATABASE_URL"].ValueFrom; ref == nil || ref.SecretKeyRef == nil || ref.SecretKeyRef.Name != "acct-webhooks-db" {
			t.Errorf("%s: DATABASE_URL %+v, want secretKeyRef acct-webhooks-db", workload, env["DATABASE_URL"])
		}
	}
	key, err := base64.StdEncoding.DecodeString(string(secret.Data["WEBHOOKS_SECRET_KEY"]))
	if err != nil || len(key) != 32 {
		t.Errorf("generated WEBHOOKS_SECRET_KEY %q: %d bytes, %v (want base64 of 32 bytes)", secret.Data["WEBHOOKS_SECRET_KEY"], len(key), err)
	}
	if secret.Name != "acct-webhooks" || secret.Annotations["helm.sh/hook"] != "pre-install,pre-upgrade" {
		t.Errorf("Secret %s, hook %q", secret.Name, secret.Annotations["helm.sh/hook"])
	}

	t.Run("existingSecret", func(t *testing.T) {
		objs := render(t, filepath.Join(chartDir, "ci", "autoscaling-keda-servicemonitor.yaml"))
		for _, o := range objs {
			if o.GVK.Kind == "Secret" && o.Labels[labelName] == "webhooks" {
				t.Errorf("Secret %s generated although services.webhooks.secrets.existingSecret is set", o.Name)
			}
		}
		for workload, env := range workloadEnv(objs) {
			if workload != "Deployment/webhooks" && workload != "Job/webhooks" {
				continue
			}
			ref := env["WEBHOOKS_SECRET_KEY"].ValueFrom
			if ref == nil || ref.SecretKeyRef == nil || ref.SecretKeyRef.Name != "acct-webhooks-keys" {
				t.Errorf("%s: WEBHOOKS_SECRET_KEY %+v, want secretKeyRef acct-webhooks-keys", workload, env["WEBHOOKS_SECRET_KEY"])
			}
		}
	})

	t.Run("kafka lag", func(t *testing.T) {
		objs := render(t, writeValues(t, "keda: {enabled: true}\nservices: {webhooks: {autoscaling: {enabled: true, kafkaLag: {enabled: true}}}}"))
		for _, o := range objs {
			if o.GVK.Kind == "ScaledObject" && o.Labels[labelName] == "webhooks" {
				trig := o.Custom.Object["spec"].(map[string]any)["triggers"].([]any)[1].(map[string]any)["metadata"].(map[string]any)
				if trig["consumerGroup"] != "webhooks" || trig["topic"] != "acct.transactions.v1" {
					t.Errorf("ScaledObject lag trigger %v", trig)
				}
				return
			}
		}
		t.Error("no ScaledObject for webhooks")
	})

	t.Run("disabled", func(t *testing.T) {
		objs := render(t, writeValues(t, "services: {webhooks: {enabled: false}}"))
		for _, o := range objs {
			if o.Labels[labelName] == "webhooks" {
				t.Errorf("%s rendered with webhooks disabled", o)
			}
		}
		if _, ok := workloadEnv(objs)["Deployment/gateway"]["UPSTREAM_WEBHOOKS_URL"]; ok {
			t.Error("gateway UPSTREAM_WEBHOOKS_URL set with webhooks disabled")
		}
		for name, np := range servicePolicies(objs) {
			for _, p := range openPorts(np, publicAddrs[0]) {
				if !slices.Contains(infraPorts, p) {
					t.Errorf("%s reaches %s on port %d with webhooks disabled", name, publicAddrs[0], p)
				}
			}
		}
	})
}

// TestChartInternetEgress: only the webhooks service reaches the internet, on TCP 443 only and
// never the private, shared or link-local ranges; every other service reaches outside addresses only
// on the DNS, PostgreSQL and Kafka ports (and, with object storage, the storage port), in every value
// set. The probe scans every TCP port of a public address on both families.
func TestChartInternetEgress(t *testing.T) {
	for name, files := range valueSets(t) {
		t.Run(name, func(t *testing.T) {
			objs := render(t, files...)
			policies := servicePolicies(objs)
			envs := workloadEnv(objs)
			if n := kinds(objs)["Deployment"]; len(policies) != n || policies["webhooks"] == nil {
				t.Fatalf("policies for %d services (webhooks: %v), want one per Deployment (%d)", len(policies), policies["webhooks"] != nil, n)
			}
			infra := infraPortsOf(t, envs, valuesOf(t, files...))
			for svc, np := range policies {
				allowed := slices.Clone(infra)
				if svc == "webhooks" {
					allowed = append(allowed, 443)
				}
				if p := storageEgressPort(t, envs["Deployment/"+svc]); p != 0 {
					allowed = append(allowed, p)
				}
				for _, addr := range publicAddrs {
					got := openPorts(np, addr)
					for _, p := range got {
						if !slices.Contains(allowed, p) {
							t.Errorf("%s reaches %s on port %d (open: %v; allowed: %v)", svc, addr, p, got, allowed)
						}
					}
					if svc == "webhooks" && !slices.Contains(got, 443) {
						t.Errorf("webhooks cannot reach %s on 443 (open: %v)", addr, got)
					}
				}
				if svc != "webhooks" {
					for _, r := range np.Spec.Egress {
						for _, peer := range r.To {
							if peer.IPBlock != nil {
								t.Errorf("%s has an ipBlock egress peer %s", svc, peer.IPBlock.CIDR)
							}
						}
					}
				}
			}
			// The webhooks service reaches private, shared and link-local addresses only on the
			// ports every service has (DNS, PostgreSQL, Kafka), never on 443.
			for _, addr := range privateAddrs {
				if got := openPorts(policies["webhooks"], addr); !slices.Equal(got, infra) {
					t.Errorf("webhooks reaches %s on %v, want only %v", addr, got, infra)
				}
			}
			// Its 443 rule is bounded by ipBlocks (not open to every address) and TCP only.
			var rules int
			for _, r := range policies["webhooks"].Spec.Egress {
				if !rulePortMatches(r.Ports, 443) {
					continue
				}
				rules++
				if len(r.To) != 2 || r.To[0].IPBlock == nil || r.To[0].IPBlock.CIDR != "0.0.0.0/0" || r.To[1].IPBlock == nil || r.To[1].IPBlock.CIDR != "::/0" {
					t.Errorf("webhooks 443 rule peers %+v, want ipBlocks 0.0.0.0/0 and ::/0", r.To)
				}
				for _, p := range r.Ports {
					if p.Protocol == nil || *p.Protocol != corev1.ProtocolTCP || p.Port == nil || p.Port.IntVal != 443 || p.EndPort != nil {
						t.Errorf("webhooks 443 rule port %+v, want TCP 443", p)
					}
				}
			}
			if rules != 1 {
				t.Errorf("webhooks has %d egress rules on 443, want 1", rules)
			}
		})
	}
}

// TestChartInternetEgressValues: networkPolicy.internetEgress turns the webhooks service's internet
// egress off, changes its ports and excludes more ranges, never fewer.
func TestChartInternetEgressValues(t *testing.T) {
	public, private := publicAddrs[0], netip.MustParseAddr("10.1.2.3")
	tests := []struct {
		name, values string
		addr         netip.Addr
		port         int32
		want         bool
	}{
		{"off", "networkPolicy: {internetEgress: {enabled: false}}", public, 443, false},
		{"http added", "networkPolicy: {internetEgress: {ports: [443, 80]}}", public, 80, true},
		{"http added keeps https", "networkPolicy: {internetEgress: {ports: [443, 80]}}", public, 443, true},
		{"http added not to private", "networkPolicy: {internetEgress: {ports: [443, 80]}}", private, 80, false},
		{"extra IPv4 except", "networkPolicy: {internetEgress: {extraExcept: [168.63.129.16/32]}}", netip.MustParseAddr("168.63.129.16"), 443, false},
		{"extra IPv6 except", "networkPolicy: {internetEgress: {extraExcept: ['64:ff9b::/96']}}", netip.MustParseAddr("64:ff9b::a9fe:a9fe"), 443, false},
		{"extra except keeps the rest", "networkPolicy: {internetEgress: {extraExcept: [168.63.129.16/32]}}", public, 443, true},
		{"allowing private addresses in the service does not open them", "services: {webhooks: {env: {WEBHOOKS_ALLOW_PRIVATE: 'true'}}}", private, 443, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			objs := render(t, writeValues(t, tc.values))
			if err := Check(objs); err != nil {
				t.Fatalf("policy violations:\n%v", err)
			}
			np := servicePolicies(objs)["webhooks"]
			if np == nil {
				t.Fatal("no NetworkPolicy for webhooks")
			}
			if got := allowsEgress(np, tc.addr, tc.port); got != tc.want {
				t.Errorf("webhooks to %s:%d allowed %v, want %v", tc.addr, tc.port, got, tc.want)
			}
		})
	}
}

// TestChartServiceExtraEgress: services.<s>.networkPolicy.extraEgress opens what it names for that
// service only (here the webhooks service to a receiver on a private address).
func TestChartServiceExtraEgress(t *testing.T) {
	receiver := netip.MustParseAddr("10.1.2.3")
	// An operator's exception: Check (the shipped value sets' policy) would refuse a private ipBlock.
	objs := render(t, writeValues(t, `services: {webhooks: {networkPolicy: {extraEgress: [{to: [{ipBlock: {cidr: 10.1.2.3/32}}], ports: [{port: 8443, protocol: TCP}]}]}}}`))
	policies := servicePolicies(objs)
	for name, np := range policies {
		want := name == "webhooks"
		if got := allowsEgress(np, receiver, 8443); got != want {
			t.Errorf("%s to %s:8443 allowed %v, want %v", name, receiver, got, want)
		}
		if allowsEgress(np, receiver, 8444) {
			t.Errorf("%s to %s:8444 allowed: the rule names 8443 only", name, receiver)
		}
	}
	if len(policies) < 8 {
		t.Fatalf("%d service policies, want one per service", len(policies))
	}
}
