{{/*
The service catalog: the static traits of every service the chart knows. Adding a service is one entry
here plus its block under `services` in values.yaml (see README.md, "Adding a service").

Traits:
  public          reachable from outside (Ingress/HTTPRoute, ingress from anywhere); only the gateway
  gateway         routes to every other enabled service (UPSTREAM_<NAME>_URL) and verifies tokens
  database        has a PostgreSQL schema: DATABASE_URL, DB_SCHEMA, migration Job
  schema          its DB_SCHEMA
  kafka           produces/consumes events: KAFKA_BROKERS (and TLS/SASL), egress to Kafka
  produces        topics it writes (pkg/events.Table; only the producer may write a topic)
  consumes        topics it reads, and whose dead letters (<topic>.dlq) it writes; its consumer group
                  is its name (the ACLs of its Strimzi KafkaUser come from these two lists)
  jwksProvider    serves /.well-known/jwks.json to the gateway and to services that verify tokens
  verifiesTokens  fetches JWKS from the jwksProvider (defence in depth behind the gateway)
  encryptionKeys  variables holding an AES-256 key (base64 of 32 bytes) from the service's Secret
                  (services.<s>.secrets.existingSecret, or generated once and kept)
  pageCursor      needs PAGE_CURSOR_SECRET (cursor pagination)
  bootstrapClient supports BOOTSTRAP_CLIENT_*
  calls           services it calls internally (<NAME>_URL, egress to them, ingress from it on theirs)
  storage         keeps files in object storage (STORAGE_BACKEND, S3_*; values `storage`): endpoints
                  that need it answer 503 while storage is off
  exports         with storage on, writes export files that expire: EXPORT_TTL and EXPORT_REUSE_WINDOW
                  from values `storage.exportTTL` and `storage.exportReuseWindow`
  internet        calls arbitrary hosts on the internet (webhook deliveries): egress to public
                  addresses only, on networkPolicy.internetEgress.ports; no other service has it
*/}}
{{- define "acct.catalog" -}}
gateway:
  public: true
  gateway: true
auth-tokens:
  database: true
  schema: auth
  kafka: true
  produces: [acct.business.v1]
  jwksProvider: true
  encryptionKeys: [SIGNING_KEY_ENCRYPTION_KEY]
  pageCursor: true
  bootstrapClient: true
transactions:
  database: true
  schema: transactions
  kafka: true
  produces: [acct.ledger.v1, acct.transactions.v1, acct.accounts.v1]
  consumes: [acct.business.v1, acct.invoicing.v1, acct.bills.v1]
  verifiesTokens: true
  pageCursor: true
  storage: true
  exports: true
bills-tags:
  database: true
  schema: bills
  kafka: true
  produces: [acct.bills.v1]
  consumes: [acct.business.v1, acct.ledger.v1, acct.transactions.v1, acct.accounts.v1, acct.invoicing.v1, acct.bills.v1]
  verifiesTokens: true
  pageCursor: true
  calls: [transactions, customers-invoices]
  storage: true
customers-invoices:
  database: true
  schema: invoicing
  kafka: true
  produces: [acct.invoicing.v1]
  consumes: [acct.business.v1, acct.accounts.v1]
  verifiesTokens: true
  pageCursor: true
  storage: true
  exports: true
reports:
  database: true
  schema: reports
  kafka: true
  consumes: [acct.business.v1, acct.ledger.v1, acct.transactions.v1, acct.invoicing.v1, acct.bills.v1]
  verifiesTokens: true
  storage: true
  exports: true
mileage:
  database: true
  schema: mileage
  kafka: true
  produces: [acct.mileage.v1]
  consumes: [acct.business.v1]
  verifiesTokens: true
  pageCursor: true
webhooks:
  database: true
  schema: webhooks
  kafka: true
  consumes: [acct.business.v1, acct.ledger.v1, acct.transactions.v1, acct.accounts.v1, acct.invoicing.v1, acct.bills.v1, acct.mileage.v1]
  verifiesTokens: true
  pageCursor: true
  encryptionKeys: [WEBHOOKS_SECRET_KEY]
  internet: true
{{- end -}}

{{/* acct.services: the enabled services as a YAML map name -> context fields, sorted by name. */}}
{{- define "acct.enabledServices" -}}
{{- $catalog := include "acct.catalog" . | fromYaml -}}
{{- range $name, $svc := .Values.services -}}
{{- if not (hasKey $catalog $name) -}}
{{- fail (printf "services.%s: unknown service (known: %s); add it to templates/_catalog.tpl" $name (keys $catalog | sortAlpha | join ", ")) -}}
{{- end -}}
{{- end -}}
{{- range $name := keys $catalog | sortAlpha }}
{{- $svc := index $.Values.services $name | default dict }}
{{- if $svc.enabled }}
{{ $name }}: {{ index $catalog $name | toJson }}
{{- end }}
{{- end }}
{{- end -}}
