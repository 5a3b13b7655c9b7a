{{/* Names, labels and the per-service pieces shared by the templates. */}}

{{- define "acct.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* ctx: dict root name svc traits */}}
{{- define "acct.svcName" -}}
{{- printf "%s-%s" (include "acct.fullname" .root) .name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "acct.selectorLabels" -}}
app.kubernetes.io/name: {{ .name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: server
{{- end -}}

{{- define "acct.commonLabels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/part-of: acct
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "acct.labels" -}}
{{ include "acct.selectorLabels" . }}
{{ include "acct.commonLabels" .root }}
{{- end -}}

{{/* Labels of infrastructure objects (Kafka, PostgreSQL): ctx is the root. */}}
{{- define "acct.infraLabels" -}}
app.kubernetes.io/instance: {{ .Release.Name }}
{{ include "acct.commonLabels" . }}
{{- end -}}

{{- define "acct.image" -}}
{{- $g := .root.Values.global.image -}}
{{- $repo := .svc.image.repository | default (printf "%s/acct-%s" $g.registry .name) -}}
{{- $tag := .svc.image.tag | default $g.tag | default .root.Chart.AppVersion -}}
{{- printf "%s:%s" $repo $tag -}}
{{- end -}}

{{- define "acct.pullPolicy" -}}
{{- .svc.image.pullPolicy | default .root.Values.global.image.pullPolicy -}}
{{- end -}}

{{/* Name of the chart-generated Secret of a service. */}}
{{- define "acct.secretName" -}}
{{- include "acct.svcName" . -}}
{{- end -}}

{{/* Secret holding the service's generated keys (existingSecret wins). */}}
{{- define "acct.keysSecretName" -}}
{{- $s := .svc.secrets | default dict -}}
{{- $s.existingSecret | default (include "acct.secretName" .) -}}
{{- end -}}

{{- define "acct.kafkaBrokers" -}}
{{- if .Values.kafka.strimzi.enabled -}}
{{- printf "%s-kafka-kafka-bootstrap:9092" (include "acct.fullname" .) -}}
{{- else -}}
{{- join "," .Values.kafka.brokers -}}
{{- end -}}
{{- end -}}

{{/*
The Kafka connection of a service with the kafka trait (ctx: root, name, svc, traits), as YAML:
brokers, tls, caSecret/caKey (a CA bundle mounted as a file), serverName, clientCertSecret (a
kubernetes.io/tls Secret), mechanism, username (or usernameSecret/usernameKey), passwordSecret/passwordKey,
awsRegion. With the chart's Strimzi cluster and authentication on: its TLS listener, its cluster CA and
the service's own KafkaUser (SCRAM-SHA-512, password in the Secret the User Operator writes).
*/}}
{{- define "acct.kafkaConn" -}}
{{- $k := .root.Values.kafka -}}
{{- if and $k.strimzi.enabled $k.strimzi.authentication -}}
brokers: {{ printf "%s-kafka-kafka-bootstrap:9093" (include "acct.fullname" .root) }}
tls: true
caSecret: {{ printf "%s-kafka-cluster-ca-cert" (include "acct.fullname" .root) }}
caKey: ca.crt
mechanism: SCRAM-SHA-512
username: {{ include "acct.svcName" . }}
passwordSecret: {{ include "acct.svcName" . }}
passwordKey: password
{{- else -}}
{{- $t := $k.tls | default dict -}}
{{- $s := $k.sasl | default dict -}}
brokers: {{ include "acct.kafkaBrokers" .root }}
tls: {{ if or $t.enabled $t.caSecret.name $t.clientCertSecret $t.serverName }}true{{ else }}false{{ end }}
{{- with $t.caSecret.name }}
caSecret: {{ . }}
caKey: {{ $t.caSecret.key | default "ca.crt" }}
{{- end }}
{{- with $t.serverName }}
serverName: {{ . }}
{{- end }}
{{- with $t.clientCertSecret }}
clientCertSecret: {{ . }}
{{- end }}
{{- with $s.mechanism }}
mechanism: {{ . }}
{{- if and (has . (list "PLAIN" "AWS_MSK_IAM")) (not (or $t.enabled $t.caSecret.name $t.clientCertSecret $t.serverName)) }}
{{- fail (printf "kafka.sasl.mechanism %s needs kafka.tls.enabled (PLAIN would send the password in clear; MSK's IAM listener is TLS only)" .) }}
{{- end }}
{{- if ne . "AWS_MSK_IAM" }}
{{- if not $s.existingSecret }}
{{- fail (printf "kafka.sasl.mechanism %s: set kafka.sasl.existingSecret (a Secret with the keys username and password)" .) }}
{{- end }}
usernameSecret: {{ $s.existingSecret }}
usernameKey: username
passwordSecret: {{ $s.existingSecret }}
passwordKey: password
{{- end }}
{{- with $s.awsRegion }}
awsRegion: {{ . }}
{{- end }}
{{- end }}
{{- end -}}
{{- end -}}

{{/*
acct.connectionBudget fails when the database pools at their most replicas, the migration Jobs and the
administration reserve need more than postgresql.maxConnections (see values.yaml).
*/}}
{{- define "acct.connectionBudget" -}}
{{- $need := 10 -}}
{{- $parts := list -}}
{{- range $name, $traits := include "acct.enabledServices" . | fromYaml -}}
{{- if $traits.database -}}
{{- $svc := index $.Values.services $name -}}
{{- $conns := int (index ($svc.env | default dict) "DB_MAX_CONNS" | default "20") -}}
{{- $replicas := int $svc.replicaCount -}}
{{- if and $svc.autoscaling (gt (int $svc.autoscaling.maxReplicas) $replicas) }}{{ $replicas = int $svc.autoscaling.maxReplicas }}{{ end -}}
{{- $ext := index ($.Values.postgresql.external | default dict) $name | default dict -}}
{{- if and (not $.Values.postgresql.cnpg.enabled) (or $ext.directUrl (and $ext.existingSecret $ext.existingSecretDirectKey)) -}}
{{- /* Behind a pooler the direct connections (relay leadership, LISTEN) reach the server too. */ -}}
{{- $conns = add $conns (int (index ($svc.env | default dict) "DB_DIRECT_MAX_CONNS" | default "4")) -}}
{{- end -}}
{{- $need = add $need (mul $conns $replicas) 2 -}}
{{- $parts = append $parts (printf "%s %d×%d" $name $replicas $conns) -}}
{{- end -}}
{{- end -}}
{{- if gt (int $need) (int .Values.postgresql.maxConnections) -}}
{{- fail (printf "postgresql.maxConnections %d: the pools need %d at their most replicas (%s; plus 2 per migration Job and 10 reserved): lower services.<s>.env.DB_MAX_CONNS or the replicas, or raise it (and PostgreSQL's max_connections)" (int .Values.postgresql.maxConnections) (int $need) (join ", " $parts)) -}}
{{- end -}}
{{- end -}}

{{/* acct.postgresqlPeers: the egress peers of the database port, as a YAML list (empty: any). */}}
{{- define "acct.postgresqlPeers" -}}
{{- $peers := (.Values.networkPolicy.peers | default dict).postgresql | default list -}}
{{- if and (not $peers) .Values.postgresql.cnpg.enabled -}}
{{- $peers = list (dict "podSelector" (dict "matchLabels" (dict "cnpg.io/cluster" (include "acct.cnpgCluster" .)))) -}}
{{- end -}}
{{- toYaml $peers -}}
{{- end -}}

{{- define "acct.cnpgCluster" -}}
{{- printf "%s-pg" (include "acct.fullname" .) | trunc 50 | trimSuffix "-" -}}
{{- end -}}

{{/* DATABASE_URL source as YAML: name/key of the secret. */}}
{{- define "acct.databaseRef" -}}
{{- if .root.Values.postgresql.cnpg.enabled -}}
name: {{ printf "%s-app" (include "acct.cnpgCluster" .root) }}
key: uri
{{- else -}}
{{- $ext := index (.root.Values.postgresql.external | default dict) .name | default dict -}}
{{- if $ext.existingSecret -}}
name: {{ $ext.existingSecret }}
key: {{ $ext.existingSecretKey | default "DATABASE_URL" }}
{{- else if $ext.url -}}
name: {{ include "acct.secretName" . }}
key: DATABASE_URL
{{- else -}}
{{- fail (printf "postgresql.external.%s: set url or existingSecret (or enable postgresql.cnpg)" .name) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
DATABASE_DIRECT_URL source as YAML (name/key of the secret), empty when the service's DATABASE_URL is a
direct connection: set when it names a transaction-mode pooler (postgresql.external.<s>.directUrl or
existingSecretDirectKey).
*/}}
{{- define "acct.databaseDirectRef" -}}
{{- if not .root.Values.postgresql.cnpg.enabled -}}
{{- $ext := index (.root.Values.postgresql.external | default dict) .name | default dict -}}
{{- if and $ext.existingSecret $ext.existingSecretDirectKey -}}
name: {{ $ext.existingSecret }}
key: {{ $ext.existingSecretDirectKey }}
{{- else if $ext.directUrl -}}
name: {{ include "acct.secretName" . }}
key: DATABASE_DIRECT_URL
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
Object storage of a service, as YAML; empty when the service keeps no files, storage.enabled is false
or the service opts out (services.<s>.storage.enabled: false). Fields: bucket, region, endpoint,
forcePathStyle, egressPort (for the NetworkPolicy) and, unless the pod's own identity is used (IRSA,
EKS Pod Identity...), credentialsSecret with accessKeyIdKey and secretAccessKeyKey.
ctx: dict root name svc traits
*/}}
{{- define "acct.storage" -}}
{{- $st := .root.Values.storage | default dict -}}
{{- $own := .svc.storage | default dict -}}
{{- if and $own (not .traits.storage) -}}
{{- fail (printf "services.%s.storage: %s keeps no files in object storage (only the services with the storage trait in templates/_catalog.tpl do)" .name .name) -}}
{{- end -}}
{{- $optOut := and (hasKey $own "enabled") (not $own.enabled) -}}
{{- if and .traits.storage $st.enabled (not $optOut) -}}
{{- $endpoint := $st.endpoint | default "" -}}
{{- $port := 443 -}}
{{- if $endpoint -}}
{{- $u := urlParse $endpoint -}}
{{- $explicit := regexFind ":[0-9]+$" $u.host | trimPrefix ":" -}}
{{- if $explicit }}{{ $port = atoi $explicit }}{{ else if eq $u.scheme "http" }}{{ $port = 80 }}{{ end -}}
{{- end -}}
bucket: {{ $own.bucket | default $st.bucket | toJson }}
region: {{ $st.region | default "us-east-1" | toJson }}
endpoint: {{ $endpoint | toJson }}
forcePathStyle: {{ $st.forcePathStyle | default false | toString | toJson }}
egressPort: {{ $port }}
{{- $c := $st.credentials | default dict }}
{{- if $c.existingSecret }}
credentialsSecret: {{ $c.existingSecret | toJson }}
accessKeyIdKey: {{ $c.accessKeyIdKey | default "AWS_ACCESS_KEY_ID" | toJson }}
secretAccessKeyKey: {{ $c.secretAccessKeyKey | default "AWS_SECRET_ACCESS_KEY" | toJson }}
{{- else if or $c.accessKeyId $c.secretAccessKey }}
{{- if not (and $c.accessKeyId $c.secretAccessKey) }}
{{- fail "storage.credentials: set both accessKeyId and secretAccessKey (or existingSecret, or neither to use the pod's identity)" }}
{{- end }}
credentialsSecret: {{ include "acct.secretName" . | toJson }}
accessKeyIdKey: AWS_ACCESS_KEY_ID
secretAccessKeyKey: AWS_SECRET_ACCESS_KEY
inlineCredentials: true
{{- end }}
{{- end -}}
{{- end -}}

{{/* The keys the chart generates into the service's Secret, as a YAML map key -> value. */}}
{{- define "acct.generatedSecretData" -}}
{{- $existing := dict -}}
{{- $found := lookup "v1" "Secret" .root.Release.Namespace (include "acct.secretName" .) -}}
{{- if $found }}{{ $existing = $found.data | default dict }}{{ end -}}
{{- $s := .svc.secrets | default dict -}}
{{- if not $s.existingSecret }}
{{- range $k := .traits.encryptionKeys | default list }}
{{ $k }}: {{ index $existing $k | default (randAlphaNum 32 | b64enc | b64enc) }}
{{- end }}
{{- if .traits.pageCursor }}
PAGE_CURSOR_SECRET: {{ index $existing "PAGE_CURSOR_SECRET" | default (randAlphaNum 48 | b64enc) }}
{{- end }}
{{- end }}
{{- if and .traits.database (not .root.Values.postgresql.cnpg.enabled) }}
{{- $ext := index (.root.Values.postgresql.external | default dict) .name | default dict }}
{{- if and $ext.url (not $ext.existingSecret) }}
DATABASE_URL: {{ $ext.url | b64enc }}
{{- end }}
{{- if and $ext.directUrl (not (and $ext.existingSecret $ext.existingSecretDirectKey)) }}
DATABASE_DIRECT_URL: {{ $ext.directUrl | b64enc }}
{{- end }}
{{- end }}
{{- $st := include "acct.storage" . | fromYaml }}
{{- if $st.inlineCredentials }}
{{- $c := .root.Values.storage.credentials }}
AWS_ACCESS_KEY_ID: {{ $c.accessKeyId | b64enc }}
AWS_SECRET_ACCESS_KEY: {{ $c.secretAccessKey | b64enc }}
{{- end }}
{{- $b := .svc.bootstrapClient | default dict }}
{{- if and .traits.bootstrapClient $b.enabled (not $b.existingSecret) }}
BOOTSTRAP_CLIENT_ID: {{ $b.id | default (index $existing "BOOTSTRAP_CLIENT_ID" | default "" | b64dec) | default (printf "bootstrap-%s" (randAlphaNum 12 | lower)) | b64enc }}
BOOTSTRAP_CLIENT_SECRET: {{ $b.secret | default (index $existing "BOOTSTRAP_CLIENT_SECRET" | default "" | b64dec) | default (randAlphaNum 40) | b64enc }}
BOOTSTRAP_CLIENT_NAME: {{ $b.name | default "bootstrap" | b64enc }}
{{- end }}
{{- end -}}

{{/* Container env of a service (also used by its migration Job). */}}
{{- define "acct.env" -}}
{{- $root := .root -}}
{{- $plain := dict "HTTP_ADDR" ":8080" "ADMIN_ADDR" ":9090" "LOG_LEVEL" $root.Values.global.logLevel "SHUTDOWN_TIMEOUT" (printf "%ds" (int $root.Values.global.shutdownTimeoutSeconds)) "OTEL_SERVICE_NAME" .name -}}
{{- with $root.Values.global.otlpEndpoint }}{{ $_ := set $plain "OTEL_EXPORTER_OTLP_ENDPOINT" . }}{{ end -}}
{{- $enabled := include "acct.enabledServices" $root | fromYaml -}}
{{- if .traits.database -}}
{{- $_ := set $plain "DB_SCHEMA" .traits.schema -}}
{{- $_ := set $plain "MIGRATE_ON_START" (ternary "false" "true" $root.Values.migrations.enabled) -}}
{{- end -}}
{{- /* Kafka: the migration Job never connects to it, so it gets the brokers alone. */ -}}
{{- $kafka := dict -}}
{{- if .traits.kafka -}}
{{- $kafka = include "acct.kafkaConn" . | fromYaml -}}
{{- $_ := set $plain "KAFKA_BROKERS" $kafka.brokers -}}
{{- if .migrate }}{{ $kafka = dict }}{{ end -}}
{{- end -}}
{{- if $kafka.tls -}}
{{- $_ := set $plain "KAFKA_TLS" "true" -}}
{{- with $kafka.caSecret }}{{ $_ := set $plain "KAFKA_TLS_CA_FILE" (printf "/etc/acct/kafka-ca/%s" $kafka.caKey) }}{{ end -}}
{{- with $kafka.serverName }}{{ $_ := set $plain "KAFKA_TLS_SERVER_NAME" . }}{{ end -}}
{{- if $kafka.clientCertSecret -}}
{{- $_ := set $plain "KAFKA_TLS_CERT_FILE" "/etc/acct/kafka-client/tls.crt" -}}
{{- $_ := set $plain "KAFKA_TLS_KEY_FILE" "/etc/acct/kafka-client/tls.key" -}}
{{- end -}}
{{- end -}}
{{- with $kafka.mechanism }}{{ $_ := set $plain "KAFKA_SASL_MECHANISM" . }}{{ end -}}
{{- with $kafka.username }}{{ $_ := set $plain "KAFKA_SASL_USERNAME" . }}{{ end -}}
{{- with $kafka.awsRegion }}{{ $_ := set $plain "KAFKA_SASL_AWS_REGION" . }}{{ end -}}
{{- if or .traits.gateway .traits.verifiesTokens -}}
{{- range $n, $t := $enabled -}}
{{- if $t.jwksProvider -}}
{{- $_ := set $plain "JWKS_URL" (printf "http://%s/.well-known/jwks.json" (include "acct.svcName" (dict "root" $root "name" $n))) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- range $n := .traits.calls | default list -}}
{{- if hasKey $enabled $n -}}
{{- $_ := set $plain (printf "%s_URL" ($n | upper | replace "-" "_")) (printf "http://%s" (include "acct.svcName" (dict "root" $root "name" $n))) -}}
{{- end -}}
{{- end -}}
{{- if .traits.gateway -}}
{{- range $n, $t := $enabled -}}
{{- if not $t.gateway -}}
{{- $_ := set $plain (printf "UPSTREAM_%s_URL" ($n | upper | replace "-" "_")) (printf "http://%s" (include "acct.svcName" (dict "root" $root "name" $n))) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- /* Object storage: not for the migration Job, which keeps no files. */ -}}
{{- $storage := dict -}}
{{- if not .migrate }}{{ $storage = include "acct.storage" . | fromYaml }}{{ end -}}
{{- if $storage -}}
{{- $_ := set $plain "STORAGE_BACKEND" "s3" -}}
{{- $_ := set $plain "S3_BUCKET" $storage.bucket -}}
{{- $_ := set $plain "S3_REGION" $storage.region -}}
{{- $_ := set $plain "S3_FORCE_PATH_STYLE" $storage.forcePathStyle -}}
{{- with $storage.endpoint }}{{ $_ := set $plain "S3_ENDPOINT" . }}{{ end -}}
{{- if .traits.exports -}}
{{- $_ := set $plain "EXPORT_TTL" ($root.Values.storage.exportTTL | default "24h" | toString) -}}
{{- $_ := set $plain "EXPORT_REUSE_WINDOW" ($root.Values.storage.exportReuseWindow | default "5m" | toString) -}}
{{- if $root.Values.storage.exportLifecycleRule }}{{ $_ := set $plain "EXPORT_LIFECYCLE_RULE" "true" }}{{ end -}}
{{- end -}}
{{- end -}}
{{- range $k := .traits.encryptionKeys | default list -}}
{{- if hasKey ($.svc.env | default dict) $k -}}
{{- fail (printf "services.%s.env.%s: the key comes from a Secret (services.%s.secrets.existingSecret, or generated by the chart), never a plain value" $.name $k $.name) -}}
{{- end -}}
{{- end -}}
{{- range $k, $v := .svc.env }}{{ $_ := set $plain $k (toString $v) }}{{ end -}}
{{- /* A migration opens a connection or two, whatever the service's pool. */ -}}
{{- if and .migrate .traits.database }}{{ $_ := set $plain "DB_MAX_CONNS" "2" }}{{ $_ := set $plain "DB_DIRECT_MAX_CONNS" "2" }}{{ end -}}
{{- /* The chart's CloudNativePG cluster: verify its server certificate against its CA. */ -}}
{{- if and .traits.database $root.Values.postgresql.cnpg.enabled -}}
{{- $_ := set $plain "DB_SSLMODE" "verify-full" -}}
{{- $_ := set $plain "DB_SSLROOTCERT" "/etc/acct/pg-ca/ca.crt" -}}
{{- end -}}
{{- range $k := keys $plain | sortAlpha }}
- name: {{ $k }}
  value: {{ index $plain $k | quote }}
{{- end }}
{{- if .traits.database }}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      {{- include "acct.databaseRef" . | nindent 6 }}
{{- with include "acct.databaseDirectRef" . }}
- name: DATABASE_DIRECT_URL
  valueFrom:
    secretKeyRef:
      {{- . | nindent 6 }}
{{- end }}
{{- end }}
{{- range $k := .traits.encryptionKeys | default list }}
- name: {{ $k }}
  valueFrom:
    secretKeyRef:
      name: {{ include "acct.keysSecretName" $ }}
      key: {{ $k }}
{{- end }}
{{- if .traits.pageCursor }}
- name: PAGE_CURSOR_SECRET
  valueFrom:
    secretKeyRef:
      name: {{ include "acct.keysSecretName" . }}
      key: PAGE_CURSOR_SECRET
{{- end }}
{{- $b := .svc.bootstrapClient | default dict }}
{{- if and .traits.bootstrapClient $b.enabled }}
{{- range $k := list "BOOTSTRAP_CLIENT_ID" "BOOTSTRAP_CLIENT_SECRET" "BOOTSTRAP_CLIENT_NAME" }}
- name: {{ $k }}
  valueFrom:
    secretKeyRef:
      name: {{ $b.existingSecret | default (include "acct.secretName" $) }}
      key: {{ $k }}
{{- end }}
{{- end }}
{{- with $kafka.usernameSecret }}
- name: KAFKA_SASL_USERNAME
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ $kafka.usernameKey }}
{{- end }}
{{- with $kafka.passwordSecret }}
- name: KAFKA_SASL_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ $kafka.passwordKey }}
{{- end }}
{{- with $storage.credentialsSecret }}
- name: AWS_ACCESS_KEY_ID
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ $storage.accessKeyIdKey }}
- name: AWS_SECRET_ACCESS_KEY
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ $storage.secretAccessKeyKey }}
{{- end }}
{{- with .svc.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "acct.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
fsGroup: 65532
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "acct.containerSecurityContext" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
readOnlyRootFilesystem: true
allowPrivilegeEscalation: false
privileged: false
capabilities:
  drop: ["ALL"]
seccompProfile:
  type: RuntimeDefault
{{- end -}}
