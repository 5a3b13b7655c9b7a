package chartcheck

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
)

const (
	labelName = "app.kubernetes.io/name"
	// PublicService is the only service that may be exposed outside the cluster.
	PublicService = "gateway"
)

// InternetServices are the only services whose NetworkPolicy may name addresses outside the cluster
// (ipBlock peers): the webhooks service delivers to its customers' endpoints. Everything else reaches
// only in-cluster peers and the DNS, PostgreSQL, Kafka (and object storage) ports.
var InternetServices = []string{"webhooks"}

// PrivateRanges are the ranges an ipBlock egress peer must always exclude: in-cluster pods and
// services, nodes, shared (CGNAT) addresses and link-local ones, where cloud metadata lives.
var PrivateRanges = []netip.Prefix{
	netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("172.16.0.0/12"),
	netip.MustParsePrefix("192.168.0.0/16"), netip.MustParsePrefix("169.254.0.0/16"),
	netip.MustParsePrefix("100.64.0.0/10"), netip.MustParsePrefix("fc00::/7"),
	netip.MustParsePrefix("fe80::/10"),
}

// SecretEnv are the variables that carry credentials: rendered only as secretKeyRef, so the values
// never appear in a Deployment, a Job or `helm get manifest`.
var SecretEnv = []string{
	"DATABASE_URL", "PAGE_CURSOR_SECRET", "SIGNING_KEY_ENCRYPTION_KEY", "BOOTSTRAP_CLIENT_SECRET",
	"STORAGE_SIGNING_KEY", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
	"WEBHOOKS_SECRET_KEY",
}

// index groups the decoded objects by kind for the cross-object checks.
type index struct {
	deployments []*appsv1.Deployment
	services    []*corev1.Service
	accounts    map[string]*corev1.ServiceAccount
	pdbs        []*policyv1.PodDisruptionBudget
	policies    []*networkingv1.NetworkPolicy
	ingresses   []*networkingv1.Ingress
	hpas        []*autoscalingv2.HorizontalPodAutoscaler
	jobs        []*batchv1.Job
	custom      []*unstructured.Unstructured
}

func newIndex(objs []Object) index {
	ix := index{accounts: map[string]*corev1.ServiceAccount{}}
	for _, o := range objs {
		switch t := o.Typed.(type) {
		case *appsv1.Deployment:
			ix.deployments = append(ix.deployments, t)
		case *corev1.Service:
			ix.services = append(ix.services, t)
		case *corev1.ServiceAccount:
			ix.accounts[t.Name] = t
		case *policyv1.PodDisruptionBudget:
			ix.pdbs = append(ix.pdbs, t)
		case *networkingv1.NetworkPolicy:
			ix.policies = append(ix.policies, t)
		case *networkingv1.Ingress:
			ix.ingresses = append(ix.ingresses, t)
		case *autoscalingv2.HorizontalPodAutoscaler:
			ix.hpas = append(ix.hpas, t)
		case *batchv1.Job:
			ix.jobs = append(ix.jobs, t)
		}
		if o.Custom != nil {
			ix.custom = append(ix.custom, o.Custom)
		}
	}
	return ix
}

// Check applies the deployment policies to a rendered chart and returns every violation found
// (nil when the manifests comply).
func Check(objs []Object) error {
	ix := newIndex(objs)
	var errs []error
	if len(ix.deployments) == 0 {
		errs = append(errs, errors.New("no Deployment rendered"))
	}
	for _, d := range ix.deployments {
		errs = append(errs, checkDeployment(d, ix)...)
	}
	for _, j := range ix.jobs {
		errs = append(errs, checkJob(j)...)
		// With network policies on, a default-deny namespace would cut the
		// migration pods off PostgreSQL unless a policy of their own selects them.
		if len(ix.policies) > 0 && !slices.ContainsFunc(ix.policies, func(p *networkingv1.NetworkPolicy) bool {
			return selectsLS(&p.Spec.PodSelector, j.Spec.Template.Labels)
		}) {
			errs = append(errs, fmt.Errorf("Job/%s: no NetworkPolicy selects its pods", j.Name))
		}
	}
	// Any other workload kind gets the same pod security policy: none is
	// rendered today, and one added later must not slip through unchecked.
	for _, o := range objs {
		if spec, ok := otherWorkloadPodSpec(o.Typed); ok {
			errs = append(errs, prefixed(o.String(), checkPodSecurity(spec))...)
		}
	}
	errs = append(errs, checkExposure(ix)...)
	errs = append(errs, checkScaleTargets(ix)...)
	return errors.Join(errs...)
}

// otherWorkloadPodSpec is the pod template of a workload other than the
// Deployments and Jobs checked in full above.
func otherWorkloadPodSpec(obj runtime.Object) (corev1.PodSpec, bool) {
	switch t := obj.(type) {
	case *appsv1.StatefulSet:
		return t.Spec.Template.Spec, true
	case *appsv1.DaemonSet:
		return t.Spec.Template.Spec, true
	case *appsv1.ReplicaSet:
		return t.Spec.Template.Spec, true
	case *batchv1.CronJob:
		return t.Spec.JobTemplate.Spec.Template.Spec, true
	case *corev1.Pod:
		return t.Spec, true
	}
	return corev1.PodSpec{}, false
}

func checkDeployment(d *appsv1.Deployment, ix index) []error {
	name := d.Labels[labelName]
	where := "Deployment/" + d.Name
	var errs []error
	fail := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf(where+": "+format, args...))
	}
	if name == "" {
		fail("label %s missing", labelName)
	}
	pod := d.Spec.Template
	podLabels := labels.Set(pod.Labels)
	spec := pod.Spec
	if spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken {
		fail("automountServiceAccountToken must be false")
	}
	if _, ok := ix.accounts[spec.ServiceAccountName]; !ok || spec.ServiceAccountName == "" {
		fail("ServiceAccount %q not rendered", spec.ServiceAccountName)
	}
	if len(spec.TopologySpreadConstraints) == 0 {
		fail("no topologySpreadConstraints")
	}
	errs = append(errs, prefixed(where, checkPodSecurity(spec))...)
	for _, c := range spec.Containers {
		cw := fmt.Sprintf("container %s", c.Name)
		if !httpProbe(c.LivenessProbe, "/healthz") {
			fail("%s: liveness probe must GET /healthz", cw)
		}
		if !httpProbe(c.ReadinessProbe, "/readyz") {
			fail("%s: readiness probe must GET /readyz", cw)
		}
		drain, ok := envDuration(c.Env, "SHUTDOWN_TIMEOUT")
		grace := time.Duration(30) * time.Second
		if spec.TerminationGracePeriodSeconds != nil {
			grace = time.Duration(*spec.TerminationGracePeriodSeconds) * time.Second
		}
		if !ok {
			fail("%s: SHUTDOWN_TIMEOUT not set", cw)
		} else if grace <= drain {
			fail("%s: terminationGracePeriodSeconds %s must exceed SHUTDOWN_TIMEOUT %s", cw, grace, drain)
		}
		// /metrics lives on the admin port, never on the API port.
		if v := envValue(c.Env, "ADMIN_ADDR"); v == nil || v.Value != ":9090" ||
			!slices.ContainsFunc(c.Ports, func(p corev1.ContainerPort) bool { return p.Name == "metrics" && p.ContainerPort == 9090 }) {
			fail("%s: ADMIN_ADDR=:9090 and a container port named metrics (9090) are required", cw)
		}
		if envValue(c.Env, "DATABASE_URL") != nil {
			if v := envValue(c.Env, "MIGRATE_ON_START"); v == nil || v.Value != "false" {
				fail("%s: MIGRATE_ON_START must be false (migrations run in the hook Job)", cw)
			}
			if !slices.ContainsFunc(ix.jobs, func(j *batchv1.Job) bool { return j.Labels[labelName] == name }) {
				fail("no migration Job for a service with a database")
			}
		}
	}
	if !slices.ContainsFunc(ix.services, func(s *corev1.Service) bool { return selects(s.Spec.Selector, podLabels) }) {
		fail("no Service selects its pods")
	}
	if !slices.ContainsFunc(ix.pdbs, func(p *policyv1.PodDisruptionBudget) bool { return selectsLS(p.Spec.Selector, podLabels) }) {
		fail("no PodDisruptionBudget selects its pods")
	}
	var np *networkingv1.NetworkPolicy
	for _, p := range ix.policies {
		if selectsLS(&p.Spec.PodSelector, podLabels) {
			np = p
		}
	}
	switch {
	case np == nil:
		fail("no NetworkPolicy selects its pods")
	case !slices.Contains(np.Spec.PolicyTypes, networkingv1.PolicyTypeIngress) || !slices.Contains(np.Spec.PolicyTypes, networkingv1.PolicyTypeEgress):
		fail("NetworkPolicy %s must restrict both Ingress and Egress", np.Name)
	case name != PublicService:
		for _, r := range np.Spec.Ingress {
			if len(r.From) == 0 {
				fail("NetworkPolicy %s allows ingress from anywhere; only %s may", np.Name, PublicService)
			}
		}
	default:
		for _, r := range np.Spec.Ingress {
			for _, p := range r.Ports {
				if len(r.From) == 0 && (p.Port == nil || p.Port.String() != "http") {
					fail("NetworkPolicy %s opens port %v to anywhere; only the http port may be public (metrics stays internal)", np.Name, p.Port)
				}
			}
		}
	}
	if np != nil {
		for _, err := range checkEgressBlocks(np, slices.Contains(InternetServices, name)) {
			fail("%v", err)
		}
	}
	return errs
}

// checkEgressBlocks enforces the internet egress rules: only the internet services name addresses
// outside the cluster (ipBlock), always with the private ranges excluded and on given TCP ports.
func checkEgressBlocks(np *networkingv1.NetworkPolicy, internet bool) []error {
	var errs []error
	for _, r := range np.Spec.Egress {
		for _, peer := range r.To {
			b := peer.IPBlock
			if b == nil {
				continue
			}
			if !internet {
				errs = append(errs, fmt.Errorf("NetworkPolicy %s allows egress to %s; only %v may reach addresses outside the cluster", np.Name, b.CIDR, InternetServices))
				continue
			}
			cidr, err := netip.ParsePrefix(b.CIDR)
			if err != nil {
				errs = append(errs, fmt.Errorf("NetworkPolicy %s: ipBlock %q: %v", np.Name, b.CIDR, err))
				continue
			}
			for _, private := range PrivateRanges {
				if cidr.Overlaps(private) && !excluded(private, b.Except) {
					errs = append(errs, fmt.Errorf("NetworkPolicy %s: ipBlock %s must except %s", np.Name, b.CIDR, private))
				}
			}
		}
		if !slices.ContainsFunc(r.To, func(p networkingv1.NetworkPolicyPeer) bool { return p.IPBlock != nil }) {
			continue
		}
		if len(r.Ports) == 0 {
			errs = append(errs, fmt.Errorf("NetworkPolicy %s: egress outside the cluster on every port; list the ports", np.Name))
		}
		for _, p := range r.Ports {
			if p.Protocol == nil || *p.Protocol != corev1.ProtocolTCP {
				errs = append(errs, fmt.Errorf("NetworkPolicy %s: egress outside the cluster must be TCP only", np.Name))
			}
		}
	}
	return errs
}

// excluded tells whether one of the except CIDRs covers all of r.
func excluded(r netip.Prefix, except []string) bool {
	for _, e := range except {
		p, err := netip.ParsePrefix(e)
		if err == nil && p.Bits() <= r.Bits() && p.Contains(r.Addr()) {
			return true
		}
	}
	return false
}

// checkPodSecurity enforces the pod and container security context every workload must have.
func checkPodSecurity(spec corev1.PodSpec) []error {
	var errs []error
	psc := spec.SecurityContext
	if psc == nil {
		psc = &corev1.PodSecurityContext{}
	}
	for _, c := range append(slices.Clone(spec.InitContainers), spec.Containers...) {
		sc := c.SecurityContext
		if sc == nil {
			sc = &corev1.SecurityContext{}
		}
		fail := func(msg string) { errs = append(errs, fmt.Errorf("container %s: %s", c.Name, msg)) }
		if !isTrue(firstBool(sc.RunAsNonRoot, psc.RunAsNonRoot)) {
			fail("runAsNonRoot must be true")
		}
		if uid := firstInt(sc.RunAsUser, psc.RunAsUser); uid == nil || *uid == 0 {
			fail("runAsUser must be a non-zero uid")
		}
		if !isTrue(sc.ReadOnlyRootFilesystem) {
			fail("readOnlyRootFilesystem must be true")
		}
		if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
			fail("allowPrivilegeEscalation must be false")
		}
		if isTrue(sc.Privileged) {
			fail("must not be privileged")
		}
		if sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") {
			fail("capabilities must drop ALL")
		} else if len(sc.Capabilities.Add) > 0 {
			fail("capabilities must not add any")
		}
		seccomp := sc.SeccompProfile
		if seccomp == nil {
			seccomp = psc.SeccompProfile
		}
		if seccomp == nil || seccomp.Type != corev1.SeccompProfileTypeRuntimeDefault {
			fail("seccompProfile must be RuntimeDefault")
		}
		for _, res := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			if q, ok := c.Resources.Requests[res]; !ok || q.IsZero() {
				fail("resources.requests." + string(res) + " must be set")
			}
			if q, ok := c.Resources.Limits[res]; !ok || q.IsZero() {
				fail("resources.limits." + string(res) + " must be set")
			}
		}
		if c.Image == "" || strings.HasSuffix(c.Image, ":") {
			fail("image must have a repository and a tag")
		}
		for _, e := range c.Env {
			if slices.Contains(SecretEnv, e.Name) && (e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil) {
				fail("env " + e.Name + " must come from a secretKeyRef, never a plain value")
			}
		}
	}
	return errs
}

// checkJob enforces the migration hook contract and the same pod security as the services.
func checkJob(j *batchv1.Job) []error {
	where := "Job/" + j.Name
	var errs []error
	hooks := splitList(j.Annotations["helm.sh/hook"])
	if !slices.Contains(hooks, "pre-upgrade") || !(slices.Contains(hooks, "pre-install") || slices.Contains(hooks, "post-install")) {
		errs = append(errs, fmt.Errorf("%s: helm.sh/hook must include pre-install (or post-install) and pre-upgrade, got %q", where, j.Annotations["helm.sh/hook"]))
	}
	policy := splitList(j.Annotations["helm.sh/hook-delete-policy"])
	if !slices.Contains(policy, "before-hook-creation") || !slices.Contains(policy, "hook-succeeded") {
		errs = append(errs, fmt.Errorf("%s: helm.sh/hook-delete-policy must be before-hook-creation,hook-succeeded", where))
	}
	for _, c := range j.Spec.Template.Spec.Containers {
		if !slices.Contains(c.Args, "migrate") {
			errs = append(errs, fmt.Errorf("%s: container %s must run `migrate`", where, c.Name))
		}
	}
	if j.Spec.Template.Spec.AutomountServiceAccountToken == nil || *j.Spec.Template.Spec.AutomountServiceAccountToken {
		errs = append(errs, fmt.Errorf("%s: automountServiceAccountToken must be false", where))
	}
	return append(errs, prefixed(where, checkPodSecurity(j.Spec.Template.Spec))...)
}

// checkExposure makes sure only the public service is reachable through Ingress or HTTPRoute.
func checkExposure(ix index) []error {
	public := map[string]bool{}
	for _, s := range ix.services {
		if s.Labels[labelName] == PublicService {
			public[s.Name] = true
		}
	}
	var errs []error
	for _, ing := range ix.ingresses {
		backends := []string{}
		if ing.Spec.DefaultBackend != nil && ing.Spec.DefaultBackend.Service != nil {
			backends = append(backends, ing.Spec.DefaultBackend.Service.Name)
		}
		for _, r := range ing.Spec.Rules {
			if r.HTTP == nil {
				continue
			}
			for _, p := range r.HTTP.Paths {
				if p.Backend.Service != nil {
					backends = append(backends, p.Backend.Service.Name)
				}
			}
		}
		for _, b := range backends {
			if !public[b] {
				errs = append(errs, fmt.Errorf("Ingress/%s: backend %s is not the %s Service", ing.Name, b, PublicService))
			}
		}
	}
	for _, u := range ix.custom {
		if u.GetKind() != "HTTPRoute" {
			continue
		}
		rules, _, _ := unstructured.NestedSlice(u.Object, "spec", "rules")
		for _, r := range rules {
			refs, _, _ := unstructured.NestedSlice(r.(map[string]any), "backendRefs")
			for _, ref := range refs {
				name, _, _ := unstructured.NestedString(ref.(map[string]any), "name")
				if !public[name] {
					errs = append(errs, fmt.Errorf("HTTPRoute/%s: backend %s is not the %s Service", u.GetName(), name, PublicService))
				}
			}
		}
	}
	return errs
}

// checkScaleTargets verifies that autoscalers point at rendered Deployments and that a Deployment
// has at most one autoscaler.
func checkScaleTargets(ix index) []error {
	deployments := map[string]bool{}
	for _, d := range ix.deployments {
		deployments[d.Name] = true
	}
	owners := map[string]string{}
	var errs []error
	add := func(kind, name, target string) {
		if !deployments[target] {
			errs = append(errs, fmt.Errorf("%s/%s: scale target Deployment %q not rendered", kind, name, target))
		}
		if prev, ok := owners[target]; ok {
			errs = append(errs, fmt.Errorf("%s/%s: Deployment %s already scaled by %s", kind, name, target, prev))
		}
		owners[target] = kind + "/" + name
	}
	for _, h := range ix.hpas {
		add("HorizontalPodAutoscaler", h.Name, h.Spec.ScaleTargetRef.Name)
	}
	for _, u := range ix.custom {
		if u.GetKind() == "ScaledObject" {
			target, _, _ := unstructured.NestedString(u.Object, "spec", "scaleTargetRef", "name")
			add("ScaledObject", u.GetName(), target)
		}
	}
	return errs
}

func httpProbe(p *corev1.Probe, path string) bool {
	return p != nil && p.HTTPGet != nil && p.HTTPGet.Path == path
}

func envValue(env []corev1.EnvVar, name string) *corev1.EnvVar {
	for i := range env {
		if env[i].Name == name {
			return &env[i]
		}
	}
	return nil
}

func envDuration(env []corev1.EnvVar, name string) (time.Duration, bool) {
	v := envValue(env, name)
	if v == nil {
		return 0, false
	}
	d, err := time.ParseDuration(v.Value)
	return d, err == nil
}

func selects(selector map[string]string, podLabels labels.Set) bool {
	return len(selector) > 0 && labels.SelectorFromSet(selector).Matches(podLabels)
}

func selectsLS(ls *metav1.LabelSelector, podLabels labels.Set) bool {
	if ls == nil || (len(ls.MatchLabels) == 0 && len(ls.MatchExpressions) == 0) {
		return false
	}
	sel, err := metav1.LabelSelectorAsSelector(ls)
	return err == nil && sel.Matches(podLabels)
}

func firstBool(vs ...*bool) *bool {
	for _, v := range vs {
		if v != nil {
			return v
		}
	}
	return nil
}

func firstInt(vs ...*int64) *int64 {
	for _, v := range vs {
		if v != nil {
			return v
		}
	}
	return nil
}

func isTrue(b *bool) bool { return b != nil && *b }

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func prefixed(where string, errs []error) []error {
	for i, err := range errs {
		errs[i] = fmt.Errorf("%s: %w", where, err)
	}
	return errs
}
