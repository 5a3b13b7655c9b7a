package chartcheck

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/acctsuite/acct/pkg/events"
)

// wantACLs is what events.Table allows service: write the topics it
// produces, read (and write the dead letters of) those it consumes, read
// as its own consumer group.
func wantACLs(service string) []string {
	var out []string
	consumes := false
	for _, u := range events.Table {
		if u.Producer == service {
			out = append(out, "topic/"+u.Topic+":Describe,Write")
		}
		if slices.Contains(u.Consumers, service) {
			consumes = true
			out = append(out, "topic/"+u.Topic+":Describe,Read", "topic/"+events.DLQ(u.Topic)+":Describe,Write")
		}
	}
	if consumes {
		out = append(out, "group/"+service+":Read")
	}
	slices.Sort(out)
	return out
}

// aclsOf flattens a KafkaUser's ACLs to "type/name:Op,Op" (literal
// patterns only: the chart renders no prefixed one).
func aclsOf(t *testing.T, o Object) []string {
	t.Helper()
	spec := o.Custom.Object["spec"].(map[string]any)
	authz := spec["authorization"].(map[string]any)
	if authz["type"] != "simple" {
		t.Fatalf("%s: authorization %v, want simple", o, authz["type"])
	}
	var out []string
	for _, a := range authz["acls"].([]any) {
		acl := a.(map[string]any)
		res := acl["resource"].(map[string]any)
		if res["patternType"] != "literal" {
			t.Fatalf("%s: ACL %v is not literal", o, acl)
		}
		var ops []string
		for _, op := range acl["operations"].([]any) {
			ops = append(ops, op.(string))
		}
		slices.Sort(ops)
		out = append(out, fmt.Sprintf("%s/%s:%s", res["type"], res["name"], strings.Join(ops, ",")))
	}
	slices.Sort(out)
	return out
}

// mountsSecret reports whether spec has the volume named name from secret.
func mountsSecret(spec corev1.PodSpec, name, secret string) bool {
	return slices.ContainsFunc(spec.Volumes, func(v corev1.Volume) bool {
		return v.Name == name && v.Secret != nil && v.Secret.SecretName == secret
	})
}

func containerEnv(spec corev1.PodSpec) map[string]corev1.EnvVar {
	m := map[string]corev1.EnvVar{}
	for _, e := range spec.Containers[0].Env {
		m[e.Name] = e
	}
	return m
}

// TestStrimziKafkaUsers: with the chart's Strimzi cluster and
// authentication on, the brokers listen with TLS and SCRAM only, each
// service that uses Kafka has a KafkaUser whose ACLs are exactly its row
// of events.Table (only auth-tokens writes acct.business.v1), and each
// Deployment connects as that user over TLS, verifying the cluster CA.
func TestStrimziKafkaUsers(t *testing.T) {
	objs := render(t, filepath.Join(chartDir, "ci", "bundled.yaml"))
	users := map[string][]string{}
	for _, o := range objs {
		switch o.GVK.Kind {
		case "KafkaUser":
			if o.Labels["strimzi.io/cluster"] != "acct-kafka" {
				t.Fatalf("%s: cluster label %q", o, o.Labels["strimzi.io/cluster"])
			}
			users[strings.TrimPrefix(o.Name, "acct-")] = aclsOf(t, o)
		case "Kafka":
			kafka := o.Custom.Object["spec"].(map[string]any)["kafka"].(map[string]any)
			if az, _ := kafka["authorization"].(map[string]any); az["type"] != "simple" {
				t.Fatalf("Kafka authorization %v, want simple", kafka["authorization"])
			}
			for _, l := range kafka["listeners"].([]any) {
				l := l.(map[string]any)
				auth, _ := l["authentication"].(map[string]any)
				if l["tls"] != true || auth["type"] != "scram-sha-512" {
					t.Fatalf("listener %v: want TLS with SCRAM-SHA-512 only", l)
				}
			}
		}
	}
	writers := 0
	for _, u := range events.Table {
		for _, svc := range append([]string{u.Producer}, u.Consumers...) {
			got, ok := users[svc]
			if !ok {
				t.Fatalf("no KafkaUser for %s (users: %v)", svc, users)
			}
			if want := wantACLs(svc); !slices.Equal(got, want) {
				t.Errorf("KafkaUser of %s:\n got  %v\n want %v", svc, got, want)
			}
		}
	}
	for svc, acls := range users {
		if slices.Contains(acls, "topic/"+events.TopicBusiness+":Describe,Write") {
			writers++
			if svc != "auth-tokens" {
				t.Errorf("%s may write %s", svc, events.TopicBusiness)
			}
		}
	}
	if writers != 1 {
		t.Errorf("%d users may write %s, want auth-tokens alone", writers, events.TopicBusiness)
	}

	for _, o := range objs {
		d, ok := o.Typed.(*appsv1.Deployment)
		if !ok {
			continue
		}
		svc := d.Labels[labelName]
		env := containerEnv(d.Spec.Template.Spec)
		if _, uses := users[svc]; !uses {
			if _, ok := env["KAFKA_BROKERS"]; ok {
				t.Errorf("%s has KAFKA_BROKERS but no KafkaUser", svc)
			}
			continue
		}
		for name, want := range map[string]string{"KAFKA_BROKERS": "acct-kafka-kafka-bootstrap:9093", "KAFKA_TLS": "true",
			"KAFKA_TLS_CA_FILE": "/etc/acct/kafka-ca/ca.crt", "KAFKA_SASL_MECHANISM": "SCRAM-SHA-512", "KAFKA_SASL_USERNAME": "acct-" + svc} {
			if env[name].Value != want {
				t.Errorf("%s: %s = %q, want %q", svc, name, env[name].Value, want)
			}
		}
		if ref := env["KAFKA_SASL_PASSWORD"].ValueFrom; ref == nil || ref.SecretKeyRef == nil ||
			ref.SecretKeyRef.Name != "acct-"+svc || ref.SecretKeyRef.Key != "password" {
			t.Errorf("%s: KAFKA_SASL_PASSWORD %+v, want the User Operator's Secret acct-%s, key password", svc, env["KAFKA_SASL_PASSWORD"], svc)
		}
		if !mountsSecret(d.Spec.Template.Spec, "kafka-ca", "acct-kafka-cluster-ca-cert") {
			t.Errorf("%s: no volume of the cluster CA (acct-kafka-cluster-ca-cert)", svc)
		}
	}
}

// TestExternalKafkaOverSASL: a managed Kafka's CA bundle and SCRAM
// credentials reach every service that uses Kafka from the named
// Secrets; the migration Jobs, which never connect, get the brokers alone.
func TestExternalKafkaOverSASL(t *testing.T) {
	objs := render(t, filepath.Join(chartDir, "ci", "external-sasl.yaml"))
	checked := 0
	for _, o := range objs {
		switch w := o.Typed.(type) {
		case *appsv1.Deployment:
			env := containerEnv(w.Spec.Template.Spec)
			if _, ok := env["KAFKA_BROKERS"]; !ok {
				continue
			}
			checked++
			svc := w.Labels[labelName]
			for name, want := range map[string]string{"KAFKA_BROKERS": "b-1.kafka.example.com:9096,b-2.kafka.example.com:9096",
				"KAFKA_TLS": "true", "KAFKA_TLS_CA_FILE": "/etc/acct/kafka-ca/ca.pem", "KAFKA_SASL_MECHANISM": "SCRAM-SHA-512"} {
				if env[name].Value != want {
					t.Errorf("%s: %s = %q, want %q", svc, name, env[name].Value, want)
				}
			}
			for name, key := range map[string]string{"KAFKA_SASL_USERNAME": "username", "KAFKA_SASL_PASSWORD": "password"} {
				ref := env[name].ValueFrom
				if ref == nil || ref.SecretKeyRef == nil || ref.SecretKeyRef.Name != "kafka-credentials" || ref.SecretKeyRef.Key != key {
					t.Errorf("%s: %s %+v, want Secret kafka-credentials key %s", svc, name, env[name], key)
				}
			}
			if !mountsSecret(w.Spec.Template.Spec, "kafka-ca", "kafka-ca") {
				t.Errorf("%s: the CA Secret kafka-ca is not mounted", svc)
			}
		case *batchv1.Job:
			env := containerEnv(w.Spec.Template.Spec)
			for name := range env {
				if strings.HasPrefix(name, "KAFKA_") && name != "KAFKA_BROKERS" {
					t.Errorf("migration Job %s has %s: it never connects to Kafka", o.Name, name)
				}
			}
		}
	}
	if checked != 7 {
		t.Fatalf("checked %d services using Kafka, want 7", checked)
	}
}
