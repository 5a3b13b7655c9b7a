package chartcheck

import (
	"strings"
	"testing"
)

func TestDecode(t *testing.T) {
	tests := []struct {
		name, doc, wantErr, wantKind string
	}{
		{name: "typed deployment", wantKind: "Deployment", doc: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  selector: {matchLabels: {a: b}}
  template:
    metadata: {labels: {a: b}}
    spec: {containers: [{name: c, image: i:1}]}
`},
		{name: "unknown field", wantErr: "unknown field", doc: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  replicaz: 2
  selector: {matchLabels: {a: b}}
  template: {spec: {containers: [{name: c, image: i}]}}
`},
		{name: "misspelled container field", wantErr: "unknown field", doc: `
apiVersion: v1
kind: Pod
metadata: {name: p}
spec: {containers: [{name: c, image: i, imagePullPolicyy: Always}]}
`},
		{name: "duplicate field", wantErr: "already set", doc: `
apiVersion: v1
kind: Service
metadata: {name: s}
spec:
  type: ClusterIP
  type: NodePort
`},
		{name: "wrong type", wantErr: "strict decode", doc: `
apiVersion: v1
kind: Service
metadata: {name: s}
spec: {ports: [{port: "eighty"}]}
`},
		{name: "unknown kind", wantErr: "no kind", doc: `
apiVersion: example.com/v1
kind: Widget
metadata: {name: w}
`},
		{name: "crd missing required field", wantErr: "spec.triggers", doc: `
apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata: {name: so}
spec: {scaleTargetRef: {name: d}, maxReplicaCount: 3}
`},
		{name: "crd complete", wantKind: "ServiceMonitor", doc: `
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: sm}
spec: {selector: {matchLabels: {a: b}}, endpoints: [{port: http}]}
`},
		{name: "no name", wantErr: "metadata.name", doc: `
apiVersion: v1
kind: ConfigMap
metadata: {}
`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := Decode([]byte("# Source: test\n" + tc.doc))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("want error containing %q, got %v", tc.wantErr, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(objs) != 1 || objs[0].GVK.Kind != tc.wantKind {
				t.Fatalf("got %v, want one %s", objs, tc.wantKind)
			}
		})
	}
}
