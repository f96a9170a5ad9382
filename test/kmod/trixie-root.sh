#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# usage: trixie-root.sh [-q]
#   -q  query: exit 0 if the root is cached, 1 if it would be made
#
# A minimal Debian 13 (trixie) root in which the kmod suite builds the
# modules for Debian 13's kernels on a Debian 12 machine: kernels from 6.12
# on are built with gcc-14, which Debian 12 lacks, and their headers'
# kbuild programs need Debian 13's libc. Made once and cached under
# ${GPUDP_CACHE_DIR:-~/.cache/gpudp}/trixie-root:
#   - debootstrap --variant=minbase trixie, with gcc-14 and make;
#   - the headers of the newest 6.12 kernel of trixie and of the newest
#     kernel of trixie-backports (7.x), unpacked under /usr/src;
#   - the 6.12 kernel image: boot/vmlinuz-REL next to the root (booted
#     under QEMU, never installed).
# Debian packages only, through the machine's own apt configuration: the
# Debian mirror of the machine's release is asked for the trixie and
# trixie-backports suites, with a private apt state (nothing under /etc/apt
# or /var/lib/apt changes). Needs root (debootstrap, chroot).
# Prints the root's directory; its file gpudp-kernels says which kernels it
# holds ("boot REL" and "compile REL" lines; see test/kmod/trixie-kernel.sh).
# Exit: 0 ready, 77 (meson SKIP) when it cannot be had (not root, no
# debootstrap, no Debian mirror, trixie unreachable), with the reason.
set -eu
skip() { echo "SKIP: $*" >&2; exit 77; }
query=0
[ "${1:-}" = -q ] && query=1
cache=${GPUDP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gpudp}
# Bump when what the root holds changes: an older root is then remade.
recipe=2
dir=$cache/trixie-root
if [ -f "$dir/.gpudp-done" ] && [ "$(cat "$dir/.gpudp-done")" = "$recipe" ]; then
	echo "$dir"
	exit 0
fi
[ "$query" = 0 ] || exit 1

[ "$(id -u)" = 0 ] || skip "no Debian 13 root cached in $dir and making one needs root (debootstrap, chroot)"
command -v debootstrap >/dev/null || skip "debootstrap missing (install debootstrap)"
command -v apt-get >/dev/null || skip "not a Debian system (no apt-get)"
command -v python3 >/dev/null || skip "python3 missing"
for t in flock unshare chroot dpkg-deb; do
	command -v $t >/dev/null || skip "$t missing"
done

mkdir -p "$cache"
exec 9>"$cache/.trixie-root.lock"
flock 9
# Another run may have made it while we waited.
if [ -f "$dir/.gpudp-done" ] && [ "$(cat "$dir/.gpudp-done")" = "$recipe" ]; then
	echo "$dir"
	exit 0
fi

# The machine's Debian mirror: the first URI of an enabled deb entry of its
# own release (component main, not -security), from the apt sources apt
# itself reads.
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
top=$(cd "$(dirname "$0")/../.." && pwd)
mirror=$(python3 "$top/config/apt-sources.py" mirror "$codename")
[ -n "$mirror" ] || skip "no Debian '$codename' main entry in this machine's apt sources to derive a trixie mirror from"

keyring=/usr/share/keyrings/debian-archive-keyring.gpg
work=$dir.new
rm -rf "$work"
# Whatever is left of an attempt that did not finish goes (its log first
# told what went wrong).
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial" \
	"$work/apt/sources.list.d" "$work/debs"
log=$work/log
echo "trixie-root: making a Debian 13 root in $dir (mirror of this machine's apt sources)" >&2
start=$(date +%s)

# The kernels: a private apt state that knows trixie and trixie-backports.
cat >"$work/apt/sources.list.d/trixie.sources" <<EOF
Types: deb
URIs: $mirror
Suites: trixie trixie-backports
Components: main
Signed-By: $keyring
EOF
: >"$work/apt/sources.list"
apt() {
	"$@" -q -o "Dir::Etc::sourcelist=$work/apt/sources.list" \
		-o "Dir::Etc::sourceparts=$work/apt/sources.list.d" \
		-o "Dir::State::lists=$work/apt/lists" \
		-o "Dir::State::status=/dev/null" \
		-o "Dir::Cache=$work/apt/cache" \
		-o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache=" \
		-o "APT::Architecture=amd64" -o "Debug::NoLocking=1" \
		-o "APT::Sandbox::User=$(id -un)"
}
# apt-get update exits 0 when a fetch fails: look for the index instead.
apt apt-get update >>"$log" 2>&1 || true
if ! ls "$work"/apt/lists/*_dists_trixie_main_binary-amd64_Packages* >/dev/null 2>&1; then
	grep -E '^(E|W):' "$log" | tail -n 3 >&2
	skip "cannot read Debian's trixie suite from $mirror (offline?)"
fi
# Newest Debian 13 kernel of a series: the package names carry the release.
newest() {
	apt apt-cache pkgnames linux-headers- 2>/dev/null |
		grep -E "^linux-headers-$1[0-9.]*\\+deb13-amd64\$" |
		sed 's/^linux-headers-//' | sort -V | tail -n 1
}
boot=$(newest '6\.12\.')
# trixie-backports' newest: what its linux-headers-amd64 depends on.
compile=$(apt apt-cache show linux-headers-amd64 2>/dev/null |
	sed -n 's/^Depends:.*linux-headers-\([0-9][^ ,]*+deb13-amd64\).*/\1/p' |
	sort -V | tail -n 1)
[ -n "$boot" ] || skip "Debian's trixie suite has no linux-headers-6.12.*-amd64"
[ -n "$compile" ] || skip "Debian's trixie-backports suite has no linux-headers-amd64"
echo "trixie-root: kernels $boot (boot) and $compile (compile only)" >&2

(
	cd "$work/debs"
	for k in "$boot" "$compile"; do
		series=${k%-amd64}
		apt apt-get download "linux-headers-$k" "linux-headers-$series-common" \
			"linux-kbuild-$series"
		# 7.x splits part of the headers into linux-base-REL.
		if apt apt-cache show "linux-base-$k" >/dev/null 2>&1; then
			apt apt-get download "linux-base-$k"
		fi
	done
	apt apt-get download "linux-image-$boot"
) >>"$log" 2>&1 || { tail -n 10 "$log" >&2; skip "cannot download the trixie kernel packages"; }

# gcc-14 and make, plus what the headers' kbuild programs link against.
# In a mount namespace of its own: the /proc and /sys it mounts in the root
# go with it, even when it is killed.
unshare --mount debootstrap --variant=minbase --keyring="$keyring" \
	--include=gcc-14,make,libelf1t64,libssl3t64,zlib1g,pahole \
	trixie "$work/root" "$mirror" >>"$log" 2>&1 ||
	{ tail -n 10 "$log" >&2; echo "trixie-root: debootstrap failed (log: $log)" >&2; exit 1; }
# The headers are unpacked, not installed: their dependencies (the image,
# initramfs-tools) are not wanted in a build root.
for d in "$work"/debs/linux-headers-*.deb "$work"/debs/linux-kbuild-*.deb \
	"$work"/debs/linux-base-*.deb; do
	[ -e "$d" ] || continue
	dpkg-deb -x "$d" "$work/root"
done
mkdir -p "$work/boot"
dpkg-deb --fsys-tarfile "$work"/debs/linux-image-"$boot"_*.deb |
	tar -x -C "$work" "./boot/vmlinuz-$boot"
for k in "$boot" "$compile"; do
	[ -f "$work/root/usr/src/linux-headers-$k/Makefile" ] ||
		{ echo "trixie-root: no /usr/src/linux-headers-$k in the root" >&2; exit 1; }
done
[ -s "$work/boot/vmlinuz-$boot" ] || { echo "trixie-root: vmlinuz-$boot missing" >&2; exit 1; }
chroot "$work/root" gcc-14 --version >/dev/null ||
	{ echo "trixie-root: gcc-14 does not run in the root" >&2; exit 1; }
rm -rf "$work/debs" "$work/apt" "$work/root/var/cache/apt/archives"/*.deb
printf 'boot %s\ncompile %s\n' "$boot" "$compile" >"$work/gpudp-kernels"
end=$(date +%s)
echo "$((end - start))" >"$work/.gpudp-seconds"
rm -rf "$dir"
mv "$work" "$dir"
echo "$recipe" >"$dir/.gpudp-done"
echo "trixie-root: ready in $((end - start)) s: $(du -sh "$dir" | cut -f1) in $dir" >&2
echo "$dir"
