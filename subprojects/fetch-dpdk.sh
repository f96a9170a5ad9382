#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Fill subprojects/packagecache/ with the DPDK release that a wrap pins
# (dpdk.wrap: 22.11.11, the default; dpdk-24.11.wrap; dpdk-25.11.wrap; the
# meson option dpdk_release picks the wrap), without touching the system's
# apt configuration.
#
# Order of attempts:
#  1. the tarball is already in packagecache/ with the right sha256: done;
#  2. for 22.11 only: Debian's "dpdk" source package of this release (its
#     .orig tarball is the upstream release tarball): a private deb-src list
#     is derived from the machine's own apt sources, with a private state
#     and cache directory, so nothing under /etc/apt or /var/lib/apt changes;
#  3. the upstream URL in the wrap, with curl or wget, for machines online;
#  4. otherwise: an error saying exactly what to download and where to put it.
#
# Usage: subprojects/fetch-dpdk.sh [--release 22.11|24.11|25.11] [--no-download]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
release=22.11
download=1
usage="usage: subprojects/fetch-dpdk.sh [--release 22.11|24.11|25.11] [--no-download]"
while [ $# -gt 0 ]; do
	case $1 in
	--release=*) release=${1#--release=}; shift ;;
	--release)
		[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
		release=$2
		shift 2
		;;
	--no-download) download=0; shift ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done
case $release in
22.11) wrap="$here/dpdk.wrap" ;;
24.11 | 25.11) wrap="$here/dpdk-$release.wrap" ;;
*) echo "fetch-dpdk: unknown release '$release' (22.11, 24.11 or 25.11)" >&2; exit 2 ;;
esac
cache="$here/packagecache"
work="$here/.apt"

wrap_get() { sed -n "s/^$1[[:space:]]*=[[:space:]]*//p" "$wrap"; }
fname=$(wrap_get source_filename)
url=$(wrap_get source_url)
sha=$(wrap_get source_hash)
# dpdk-22.11.11.tar.xz -> 22.11.11
version=${fname#dpdk-}
version=${version%.tar.xz}
dest="$cache/$fname"

log() { echo "fetch-dpdk: $*" >&2; }

sha_ok() { [ -f "$1" ] && echo "$sha  $1" | sha256sum --check --status; }

install_tarball() {
	mkdir -p "$cache"
	if ! sha_ok "$1"; then
		log "$1 has sha256 $(sha256sum "$1" | cut -d' ' -f1), want $sha; not used"
		return 1
	fi
	cp "$1" "$dest.tmp" && mv "$dest.tmp" "$dest"
	log "DPDK $version source ready: ${dest#"$here"/}"
}

# A deb-src list of the machine's own Debian entries for its release ($1),
# with their suites renamed to codename $2: the Debian release whose dpdk
# source is wanted (bookworm for 22.11, also on a Debian 13 machine).
derive_sources() {
	python3 "$here/../config/apt-sources.py" deb-src "$1" "$2"
}

from_debian() {
	command -v apt-get >/dev/null || { log "no apt-get: not a Debian system"; return 1; }
	local codename
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[ -n "$codename" ] || { log "no VERSION_CODENAME in /etc/os-release"; return 1; }
	rm -rf "$work"
	mkdir -p "$work/sources.list.d" "$work/lists/partial" "$work/cache/archives/partial" "$work/src"
	# DPDK 22.11 is Debian 12's (bookworm) dpdk: ask for that suite on the
	# same mirror, whatever this machine runs
	derive_sources "$codename" bookworm >"$work/sources.list.d/dpdk-src.sources"
	if ! [ -s "$work/sources.list.d/dpdk-src.sources" ]; then
		log "no Debian '$codename' entry with component main in this machine's apt sources"
		return 1
	fi
	: >"$work/sources.list"
	local apt=(apt-get -q
		-o "Dir::Etc::sourcelist=$work/sources.list"
		-o "Dir::Etc::sourceparts=$work/sources.list.d"
		-o "Dir::State::lists=$work/lists"
		-o "Dir::Cache=$work/cache"
		-o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache="
		-o "APT::Sandbox::User=$(id -un)"
		-o "Debug::NoLocking=1")
	log "reading Debian 12's (bookworm) source index on this machine's '$codename' mirror (private apt state in ${work#"$here"/})"
	"${apt[@]}" update >"$work/update.log" 2>&1 || {
		log "apt-get update of the private source list failed; see $work/update.log"
		return 1
	}
	# apt-get source takes exact versions only: pick the Debian revision of
	# this upstream release that the index offers.
	local aptcache=(apt-cache "${apt[@]:2}") debver
	debver=$("${aptcache[@]}" showsrc dpdk 2>/dev/null |
		sed -n "s/^Version: \(\(.*:\)\?$version-.*\)/\1/p" | head -n 1)
	[ -n "$debver" ] || {
		log "Debian's index has no dpdk source of upstream version $version"
		return 1
	}
	( cd "$work/src" && "${apt[@]}" source --download-only "dpdk=$debver" ) \
		>"$work/source.log" 2>&1 || {
		log "Debian has no source package dpdk $version here; see $work/source.log"
		return 1
	}
	local orig="$work/src/dpdk_$version.orig.tar.xz"
	[ -f "$orig" ] || { log "$orig missing after apt-get source"; return 1; }
	install_tarball "$orig"
}

from_upstream() {
	log "downloading $url"
	mkdir -p "$cache"
	if command -v curl >/dev/null; then
		curl -fsSL --connect-timeout 10 -o "$dest.part" "$url" || return 1
	elif command -v wget >/dev/null; then
		wget -q -T 10 -O "$dest.part" "$url" || return 1
	else
		return 1
	fi
	install_tarball "$dest.part"
	local rc=$?
	rm -f "$dest.part"
	return $rc
}

if sha_ok "$dest"; then
	log "DPDK $version source already in ${dest#"$here"/}"
	exit 0
fi
if [ "$release" = 22.11 ]; then
	from_debian && { rm -rf "$work"; exit 0; }
fi
if [ $download = 1 ] && from_upstream; then
	exit 0
fi
also=""
if [ "$release" = 22.11 ]; then
	also="
  (or Debian's dpdk_$version.orig.tar.xz, the same file)"
fi
cat >&2 <<EOF
fetch-dpdk: ERROR: could not get the DPDK $version source.
  Download: $url$also
  sha256:   $sha
  Put it at: $dest
  then run the command again.
EOF
exit 1
