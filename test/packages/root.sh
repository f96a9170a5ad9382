#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# usage: root.sh CODENAME        (bookworm or trixie)
#
# A pristine Debian root of release CODENAME (debootstrap --variant=minbase,
# nothing else), in which test/packages/check-root.sh installs gpudp's
# packages. Made once and cached under
# ${GPUDP_CACHE_DIR:-~/.cache/gpudp}/pkg-root-CODENAME; each check works
# on a copy, so every check starts from a fresh root. The mirror is the one
# of this machine's apt sources (config/apt-sources.py); the root's own
# apt sources name it too. Needs root (debootstrap).
# Prints the root's directory. Exit: 0 ready, 77 (meson SKIP) when it
# cannot be had (not root, no debootstrap, no mirror, release unreachable).
set -eu
skip() { echo "SKIP: $*" >&2; exit 77; }
codename=$1
cache=${GPUDP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gpudp}
# Bump when what the root holds changes: an older root is then remade.
recipe=1
dir=$cache/pkg-root-$codename
done_ok() { [ -f "$dir/.gpudp-done" ] && [ "$(cat "$dir/.gpudp-done")" = "$recipe" ]; }
if done_ok; then
	echo "$dir"
	exit 0
fi
[ "$(id -u)" = 0 ] || skip "no Debian $codename root cached in $dir and making one needs root (debootstrap)"
for t in debootstrap apt-get python3 flock unshare; do
	command -v $t >/dev/null || skip "$t missing"
done
mkdir -p "$cache"
exec 9>"$dir.lock"
flock 9
if done_ok; then
	echo "$dir"
	exit 0
fi
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck disable=SC1091
host=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
mirror=$(python3 "$top/config/apt-sources.py" mirror "$host")
[ -n "$mirror" ] || skip "no Debian '$host' main entry in this machine's apt sources to take a mirror from"
work=$dir.new
rm -rf "$work"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work"
echo "packages: making a Debian $codename root in $dir" >&2
start=$(date +%s)
# its own mount namespace: the /proc debootstrap mounts in the root goes
# with it, even when it is killed
if ! unshare --mount debootstrap --variant=minbase \
	--keyring=/usr/share/keyrings/debian-archive-keyring.gpg \
	"$codename" "$work/root" "$mirror" >"$work/log" 2>&1; then
	tail -n 5 "$work/log" >&2
	grep -q 'Failed getting release file\|Couldn.t download' "$work/log" &&
		skip "cannot read Debian's $codename suite from $mirror (offline?)"
	echo "packages: debootstrap $codename failed" >&2
	exit 1
fi
rm -f "$work/root"/var/cache/apt/archives/*.deb
echo "$(($(date +%s) - start))" >"$work/.gpudp-seconds"
rm -rf "$dir"
mv "$work" "$dir"
echo "$recipe" >"$dir/.gpudp-done"
echo "packages: root ready in $(cat "$dir/.gpudp-seconds") s: $(du -sh "$dir" | cut -f1)" >&2
echo "$dir"
