#!/usr/bin/env bash
# Starts a throw-away PostgreSQL owned by this CI run (STACK.md trap 9): data under /tmp, a
# non-default port, trust auth on loopback only. Writes its URL to /tmp/image-policy-ci-pg/url.
set -euo pipefail
dir=/tmp/image-policy-ci-pg
port="${IMAGE_POLICY_CI_PG_PORT:-55432}"
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$bin" ] || [ ! -x "$bin/pg_ctl" ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
fi
rm -rf "$dir" && mkdir -p "$dir" && chown postgres "$dir"
runuser -u postgres -- "$bin/initdb" -D "$dir/data" -U postgres --auth=trust >/dev/null
runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w \
  -o "-k $dir -c listen_addresses=127.0.0.1 -p $port" start >/dev/null
echo "postgres://postgres@127.0.0.1:$port/postgres" > "$dir/url"
