#!/bin/sh
# The protected-call benchmark's outside tools, from Debian packages: nginx (the upstream, and a peer), haproxy (two
# peers) and wrk (the load generator). Installs only what is missing; does nothing when all three are there.
# Debian starts nginx and haproxy as services on install: the benchmark runs its own copies on free ports with
# generated configs, so the services it just installed are stopped again and not left serving port 80.
set -eu

missing=
for tool in nginx haproxy wrk; do
  command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] || missing="$missing $tool"
done
for tool in taskset getconf; do
  command -v "$tool" >/dev/null 2>&1 || { echo "install-peers: $tool is missing (util-linux / libc-bin)" >&2; exit 1; }
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
  as_root=
elif command -v sudo >/dev/null 2>&1; then
  as_root=sudo
else
  echo "install-peers: missing:$missing; run as root, or install them: apt-get install -y$missing" >&2
  exit 1
fi
command -v apt-get >/dev/null 2>&1 || { echo "install-peers: missing:$missing and no apt-get to install them" >&2; exit 1; }

echo "install-peers: apt-get install -y$missing" >&2
$as_root apt-get update -qq >&2
# shellcheck disable=SC2086 # word splitting of the package list is wanted
$as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >&2

# Stop the services the packages may have started (only the ones installed here), by their own pid files.
for service in $missing; do
  [ "$service" = wrk ] && continue
  $as_root service "$service" stop >/dev/null 2>&1 || true
  pidfile="/run/$service.pid"
  if [ -s "$pidfile" ]; then
    $as_root kill "$(cat "$pidfile")" 2>/dev/null || true
  fi
done
