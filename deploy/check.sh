#!/usr/bin/env bash
# Checks the packaging files without a container runtime: the Dockerfile linted (dockerfilelint, pinned in
# package-lock.json), docker-compose.yml parsed and its services checked, and the systemd unit verified by
# systemd-analyze against the binary given as the first argument (standing in for /usr/local/bin/sigil).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
sigil_bin="${1:?usage: deploy/check.sh PATH_TO_SIGIL_BINARY}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

(cd "$here" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
"$here/node_modules/.bin/dockerfilelint" "$root/Dockerfile"

python3 - "$root/docker-compose.yml" <<'PY'
import sys, yaml
c = yaml.safe_load(open(sys.argv[1]))
s = c["services"]
assert set(s) == {"postgres", "sigil"}, s.keys()
assert s["sigil"]["depends_on"]["postgres"]["condition"] == "service_healthy"
assert s["sigil"]["environment"]["SIGIL_DATABASE_URL"].startswith("postgres://")
assert all(p.startswith("127.0.0.1:") for p in s["sigil"]["ports"]), "ports bound beyond loopback"
print("docker-compose.yml: ok")
PY

# The unit runs the binary that `sigil up` built; the sandboxing options are checked by systemd itself.
sed "s|/usr/local/bin/sigil|$sigil_bin|" "$here/sigil.service" >"$work/sigil.service"
command -v systemd-analyze >/dev/null || { echo "systemd-analyze is not installed: install the systemd package" >&2; exit 1; }
# verify only warns about an unknown or misspelt option: any output fails the check.
out="$(systemd-analyze verify "$work/sigil.service" 2>&1)" || { echo "$out" >&2; exit 1; }
[ -z "$out" ] || { echo "deploy/sigil.service: $out" >&2; exit 1; }
echo "deploy/sigil.service: ok"
