#!/bin/sh
# The image's entry point (behind tini): starts one service of the engine.
#   rp-service <service>        or   SERVICE=<service> rp-service
# exec, so that Node is tini's child and receives SIGTERM itself.
set -eu
app="${RP_APP_DIR:-/app}"
if [ "$#" -gt 1 ]; then
  echo "rp-service: one argument, the service to start (got $#)" >&2
  exit 64
fi
service="${1:-${SERVICE:-}}"
main="$app/services/$service/dist/main.js"
case "$service" in
  '' | */* | .*) main='' ;;
esac
if [ -z "$main" ] || [ ! -f "$main" ]; then
  echo "rp-service: name the service to start, as the argument or SERVICE; one of:" >&2
  for found in "$app"/services/*/dist/main.js; do
    [ -f "$found" ] || continue
    found="${found%/dist/main.js}"
    echo "  ${found##*/}" >&2
  done
  exit 64
fi
# V8's young generation, 16 MB a semi-space: left to itself V8 keeps it at 1 MB for a service's
# short-lived objects and scavenges many times a second. NODE_OPTIONS refuses these flags, so they go on
# the command line; RP_NODE_FLAGS replaces them ("" for none). The launcher's defaultServiceNodeFlags
# are the same.
flags=${RP_NODE_FLAGS-'--min-semi-space-size=16 --max-semi-space-size=16'}
set -f
# shellcheck disable=SC2086 # the flags are words
exec node $flags "$main"
