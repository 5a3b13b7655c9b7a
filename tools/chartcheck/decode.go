package chartcheck

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// Object is one rendered manifest: a typed Kubernetes object for core kinds, an unstructured one
// for custom resources.
type Object struct {
	GVK    schema.GroupVersionKind
	Name   string
	Labels map[string]string
	// Annotations of the object itself.
	Annotations map[string]string
	Typed       runtime.Object
	Custom      *unstructured.Unstructured
}

func (o Object) String() string { return o.GVK.Kind + "/" + o.Name }

// customKinds are the custom resources the chart may render, each with the paths that must be set.
var customKinds = map[schema.GroupVersionKind][][]string{
	{Group: "monitoring.coreos.com", Version: "v1", Kind: "ServiceMonitor"}: {
		{"spec", "selector", "matchLabels"}, {"spec", "endpoints"},
	},
	{Group: "keda.sh", Version: "v1alpha1", Kind: "ScaledObject"}: {
		{"spec", "scaleTargetRef", "name"}, {"spec", "triggers"}, {"spec", "maxReplicaCount"},
	},
	{Group: "kafka.strimzi.io", Version: "v1beta2", Kind: "Kafka"}: {
		{"spec", "kafka", "listeners"}, {"spec", "entityOperator"},
	},
	{Group: "kafka.strimzi.io", Version: "v1beta2", Kind: "KafkaNodePool"}: {
		{"metadata", "labels", "strimzi.io/cluster"}, {"spec", "replicas"}, {"spec", "roles"}, {"spec", "storage", "type"},
	},
	{Group: "kafka.strimzi.io", Version: "v1beta2", Kind: "KafkaUser"}: {
		{"metadata", "labels", "strimzi.io/cluster"}, {"spec", "authentication", "type"}, {"spec", "authorization", "acls"},
	},
	{Group: "kafka.strimzi.io", Version: "v1beta2", Kind: "KafkaTopic"}: {
		{"metadata", "labels", "strimzi.io/cluster"}, {"spec", "partitions"}, {"spec", "replicas"},
	},
	{Group: "postgresql.cnpg.io", Version: "v1", Kind: "Cluster"}: {
		{"spec", "instances"}, {"spec", "storage", "size"}, {"spec", "bootstrap", "initdb", "database"},
	},
	{Group: "gateway.networking.k8s.io", Version: "v1", Kind: "HTTPRoute"}: {
		{"spec", "parentRefs"}, {"spec", "rules"},
	},
}

// newDecoder returns the strict universal deserializer for the built-in API groups the chart uses:
// unknown or duplicated fields are errors.
func newDecoder() (runtime.Decoder, error) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, appsv1.AddToScheme, autoscalingv2.AddToScheme, policyv1.AddToScheme,
		networkingv1.AddToScheme, batchv1.AddToScheme, rbacv1.AddToScheme,
	} {
		if err := add(scheme); err != nil {
			return nil, fmt.Errorf("build scheme: %w", err)
		}
	}
	return serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDeserializer(), nil
}

// Decode splits a multi-document YAML stream (helm template output) and decodes every document.
// It fails on the first document that is not a known kind or does not decode strictly.
func Decode(manifests []byte) ([]Object, error) {
	dec, err := newDecoder()
	if err != nil {
		return nil, err
	}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(manifests)))
	var objs []Object
	for i := 0; ; i++ {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		if len(bytes.TrimSpace(stripComments(doc))) == 0 {
			continue
		}
		obj, err := decodeOne(dec, doc)
		if err != nil {
			return nil, fmt.Errorf("document %d (%s): %w", i, sourceOf(doc), err)
		}
		objs = append(objs, obj)
	}
	return objs, nil
}

func decodeOne(dec runtime.Decoder, doc []byte) (Object, error) {
	u := &unstructured.Unstructured{}
	js, err := yaml.YAMLToJSON(doc)
	if err != nil {
		return Object{}, fmt.Errorf("yaml: %w", err)
	}
	if err := u.UnmarshalJSON(js); err != nil {
		return Object{}, fmt.Errorf("object header: %w", err)
	}
	gvk := u.GroupVersionKind()
	obj := Object{GVK: gvk, Name: u.GetName(), Labels: u.GetLabels(), Annotations: u.GetAnnotations()}
	if obj.Name == "" {
		return obj, errors.New("metadata.name is empty")
	}
	if required, ok := customKinds[gvk]; ok {
		for _, path := range required {
			v, found, err := unstructured.NestedFieldNoCopy(u.Object, path...)
			if err != nil || !found || isEmpty(v) {
				return obj, fmt.Errorf("%s %s: required field %s missing", gvk.Kind, obj.Name, strings.Join(path, "."))
			}
		}
		obj.Custom = u
		return obj, nil
	}
	typed, gotGVK, err := dec.Decode(doc, nil, nil)
	if err != nil {
		// Strict errors (unknown/duplicate fields) come back with a decoded object: still a failure.
		return obj, fmt.Errorf("strict decode %s: %w", gvk, err)
	}
	obj.GVK = *gotGVK
	obj.Typed = typed
	return obj, nil
}

func isEmpty(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case string:
		return t == ""
	case []any:
		return len(t) == 0
	case map[string]any:
		return len(t) == 0
	}
	return false
}

// sourceOf returns helm's "# Source: ..." comment of a document, to name it in errors.
func sourceOf(doc []byte) string {
	for _, line := range strings.Split(string(doc), "\n") {
		if s, ok := strings.CutPrefix(strings.TrimSpace(line), "# Source: "); ok {
			return s
		}
	}
	return "no source"
}

func stripComments(doc []byte) []byte {
	var out bytes.Buffer
	for _, line := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		out.WriteString(line)
		out.WriteByte('\n')
	}
	return out.Bytes()
}
