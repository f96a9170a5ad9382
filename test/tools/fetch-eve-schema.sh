#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Put Suricata's EVE JSON schema (etc/schema.json of Suricata's source) at
# ${GPUDP_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/gpudp}/suricata/schema.json,
# for the tests that check gpudp-capture's EVE alert lines (--eve) against
# it (test/app/eve_check.py). The schema is not part of gpudp's tree: it is
# read from the cache at run time.
#
# Fetched once; later calls use the cache. Suricata is not packaged for
# Debian 12 and its binary packages do not ship the schema; the release
# tarballs of its 8.0 series hold etc/schema.json (those of 7.0, Debian 13's
# own suricata, do not). So the .orig tarball (the upstream release) of
# Debian's "suricata" 8.0.x source package is taken from Debian 13's
# backports or from unstable: a private deb-src list is derived from the
# machine's own apt sources (config/apt-sources.py, as
# subprojects/fetch-dpdk.sh does), with a private apt state and cache
# directory, so nothing under /etc/apt or /var/lib/apt changes. apt's
# download helper checks the tarball against the sha256 (or sha512) of the
# signed index; the extracted file must parse as JSON and define the alert
# object. Only the schema is kept: the tarball and the temporary
# directories go.
#
# Usage: test/tools/fetch-eve-schema.sh [--no-download] [--print-path]
#   --no-download  only use the cache
#   --print-path   print the schema's path on stdout
# Exit: 0 ready; 77 (meson SKIP) with a one-line reason when it cannot be
# had (no apt-get, Debian's mirror unreachable and nothing cached,
# --no-download and nothing cached); 1 when what was fetched is wrong.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
usage="usage: test/tools/fetch-eve-schema.sh [--no-download] [--print-path]"
download=1
print=0
while [ $# -gt 0 ]; do
	case $1 in
	--no-download) download=0; shift ;;
	--print-path) print=1; shift ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done

cache=${GPUDP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gpudp}
dir=$cache/suricata
dest=$dir/schema.json
# Where Suricata's source is taken from: its 8.0 series, the first whose
# release tarball carries etc/schema.json (7.0's tarballs, Debian 13's own
# suricata, do not), in Debian 13's backports and in unstable.
series=8.0
suites="trixie-backports sid"

log() { echo "fetch-eve-schema: $*" >&2; }
skip() { echo "SKIP: fetch-eve-schema: $*" >&2; exit 77; }
fail() { log "ERROR: $*"; exit 1; }

# A usable schema: JSON, an object schema whose "alert" property defines
# the alert fields the EVE writer emits.
schema_ok() {
	[ -s "$1" ] && command -v python3 >/dev/null && python3 - "$1" <<'EOF'
import json
import sys
try:
    with open(sys.argv[1]) as f:
        s = json.load(f)
    alert = s["properties"]["alert"]["properties"]
    ok = s.get("type") == "object" and all(
        k in alert for k in ("action", "gid", "signature_id", "rev", "signature",
                             "category", "severity"))
    ok = ok and all(k in s["properties"] for k in (
        "event_type", "timestamp", "src_ip", "src_port", "dest_ip", "dest_port",
        "proto", "community_id"))
except (OSError, ValueError, KeyError, TypeError, AttributeError):
    ok = False
sys.exit(0 if ok else 1)
EOF
}

done_ok() {
	[ $print = 1 ] && echo "$dest"
	exit 0
}

if schema_ok "$dest"; then
	done_ok
fi
if [ -e "$dest" ]; then
	log "$dest is not a usable EVE schema; fetching it again"
fi
[ $download = 1 ] || skip "no Suricata EVE schema in $dest (--no-download)"
command -v apt-get >/dev/null || skip "no apt-get: not a Debian system, and no Suricata EVE schema in $dest"
command -v python3 >/dev/null || skip "python3 missing"
command -v tar >/dev/null || skip "tar missing"
# shellcheck disable=SC1091
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[ -n "$codename" ] || skip "no VERSION_CODENAME in /etc/os-release"

mkdir -p "$dir"
work=$(mktemp -d "$dir/.fetch.XXXXXX")
# Nothing but the schema stays (nor an empty directory when it was not had).
trap 'rm -rf "$work"; rmdir "$dir" 2>/dev/null || true' EXIT
mkdir -p "$work/sources.list.d" "$work/lists/partial" "$work/cache/archives/partial" "$work/src"
# The machine's own Debian entries (URIs, Signed-By), as config/apt-sources.py
# derives them for subprojects/fetch-dpdk.sh, with the suites that have
# Suricata 8.0: the same mirror, whatever Debian release this machine runs.
python3 "$top/config/apt-sources.py" deb-src "$codename" "${suites%% *}" |
	sed "s/^Suites: .*/Suites: $suites/" >"$work/sources.list.d/suricata-src.sources"
grep -q '^Types:' "$work/sources.list.d/suricata-src.sources" ||
	skip "no Debian '$codename' entry with component main in this machine's apt sources"
: >"$work/sources.list"
apt=(-q
	-o "Dir::Etc::sourcelist=$work/sources.list"
	-o "Dir::Etc::sourceparts=$work/sources.list.d"
	-o "Dir::State::lists=$work/lists"
	-o "Dir::Cache=$work/cache"
	-o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache="
	-o "APT::Sandbox::User=$(id -un)"
	-o "Debug::NoLocking=1")
log "reading Debian's source index ($suites) on this machine's '$codename' mirror"
# apt-get update exits 0 when a fetch fails: look for the indexes instead.
apt-get "${apt[@]}" update >"$work/update.log" 2>&1 || true
if ! ls "$work"/lists/*_main_source_Sources* >/dev/null 2>&1; then
	why=$(sed -n 's/^[EW]: Failed to fetch //p' "$work/update.log" | head -n 1)
	skip "cannot read Debian's source index ($suites) (offline?${why:+: $why}), and no Suricata EVE schema in $dest"
fi
# apt-get source takes exact versions only: the Debian revisions of
# upstream series $series that the indexes offer, newest first.
mapfile -t debvers < <(apt-cache "${apt[@]}" showsrc suricata 2>/dev/null |
	sed -n "s/^Version: \(\([0-9]*:\)\?${series//./\\.}\.[0-9].*\)/\1/p" | sort -uVr)
[ ${#debvers[@]} -gt 0 ] || skip "Debian's source index ($suites) has no suricata $series.x"
# Only the .orig tarball (the upstream release, which has etc/schema.json),
# downloaded by apt's own helper against the sha256 of the signed index
# that apt-get source --print-uris gives: a file of another hash is refused.
orig=""
for debver in "${debvers[@]}"; do
	upver=${debver#*:}
	upver=${upver%-*}
	uri=$(cd "$work/src" && apt-get "${apt[@]}" source --print-uris "suricata=$debver" 2>/dev/null |
		awk -v f="suricata_$upver.orig.tar." 'index($2, f) == 1 && $2 !~ /\.asc$/ { print }' | head -n 1)
	[ -n "$uri" ] || continue
	read -r url name _ hash <<<"$uri"
	url=${url//\'/}
	case $hash in
	SHA256:* | SHA512:*) ;;
	*) log "no sha256 for $name in Debian's index ($hash); not used"; continue ;;
	esac
	log "downloading $name (Debian suricata $debver)"
	if /usr/lib/apt/apt-helper "${apt[@]}" download-file "$url" "$work/src/$name" "$hash" \
		>"$work/source.log" 2>&1 && [ -s "$work/src/$name" ]; then
		orig=$work/src/$name
		break
	fi
	# a file that arrived with another hash: not a mirror's gap, an error
	[ ! -e "$work/src/$name.FAILED" ] ||
		fail "$name from Debian's mirror does not have the index's $hash"
	grep -E '^E:' "$work/source.log" | head -n 1 >&2 || true
done
[ -n "$orig" ] || skip "cannot download a suricata $series.x .orig tarball from Debian (offline?)"
# Only etc/schema.json, whatever the tarball's top directory is called.
mkdir "$work/x"
tar -xf "$orig" -C "$work/x" --wildcards --no-anchored '*/etc/schema.json' 2>"$work/tar.log" ||
	fail "suricata_$upver.orig tarball has no etc/schema.json"
got=$(find "$work/x" -path '*/etc/schema.json' -type f | head -n 1)
[ -n "$got" ] || fail "suricata_$upver.orig tarball has no etc/schema.json"
schema_ok "$got" || fail "etc/schema.json of suricata $upver is not JSON with the EVE alert definitions"
# Into place in one rename: a concurrent reader sees the old file or the new.
cp "$got" "$work/schema.json"
mv "$work/schema.json" "$dest"
log "Suricata $upver EVE schema ready: $dest"
done_ok
