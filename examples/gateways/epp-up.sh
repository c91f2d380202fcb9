#!/bin/sh
# examples/gateways/epp-up.sh CONFIG.yaml — the llm-d-epp.json arms' up_cmd:
# the EPP reads its EndpointPickerConfig only at start (--config-file), so an
# arm replaces the ConfigMap mounted at /etc/epp and restarts the EPP, then
# follows its log until stopped.  GP_NS, GP_EPP_NAME (the Deployment; its
# ConfigMap is assumed to be GP_EPP_NAME-config with key epp-config.yaml).
set -eu
cfg=${1:?usage: epp-up.sh CONFIG.yaml}
ns=${GP_NS:?} name=${GP_EPP_NAME:?}
kubectl -n "$ns" create configmap "$name-config" --from-file=epp-config.yaml="$cfg" \
	--dry-run=client -o yaml | kubectl -n "$ns" apply -f -
kubectl -n "$ns" rollout restart "deployment/$name"
kubectl -n "$ns" rollout status "deployment/$name" --timeout=300s
exec kubectl -n "$ns" logs -f "deployment/$name"
