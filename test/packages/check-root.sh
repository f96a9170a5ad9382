#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# usage: check-root.sh CODENAME DEBDIR OUTDIR
#
# gpudp's packages (DEBDIR/*.deb, from test/packages/build.sh) in a fresh
# Debian root of release CODENAME (a copy of test/packages/root.sh's):
# `apt install ./*.deb` succeeds without the NVIDIA driver, the demo runs
# from the installed gpudp-capture on the installed capture, `gpudp-fwd
# --help` works, `dkms build` builds gpudp_pin for the root's kernel
# headers against the test provider nvidia_p2p_sim (in place of the
# driver) and skips it without (also when apt installs it), and `apt purge`
# leaves no file of gpudp.
# The root's downloads are kept under the cache (pkg-apt-CODENAME) for the
# next run. Leaves OUTDIR/CODENAME/*.log. Exit 0 passed, 1 failed, 77 skip.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
codename=$1 debs=$2 out=$3
cached=$("$top/test/packages/root.sh" "$codename") || exit $?
cache=$(dirname "$cached")
fail=0
bad() { echo "FAIL ($codename): $*" >&2; fail=1; }
ok() { echo "ok ($codename): $*" >&2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/gpudp-pkg-$codename.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root
cp -a "$cached/root" "$root"
mkdir -p "$root/tmp/gpudp-debs" "$root/tmp/gpudp-sim/test/kmod" \
	"$cache/pkg-apt-$codename/partial"
cp "$debs"/*.deb "$root/tmp/gpudp-debs/"
cp -r "$top/kmod" "$root/tmp/gpudp-sim/"
cp -r "$top/test/kmod/sim" "$root/tmp/gpudp-sim/test/kmod/"
sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/config/dkms.conf" >"$root/tmp/gpudp-pin-version"
cp "$top/test/packages/in-root.sh" "$root/tmp/"
# Own mount and PID namespaces: the root's /proc, /sys and the download
# cache mounted in it go with them, even when killed.
rc=0
# shellcheck disable=SC2016 # expanded by the inner shell
unshare --mount --pid --fork --mount-proc="$root/proc" sh -c '
	mount -t sysfs -o ro sysfs "$1/sys"
	mount --bind "$2" "$1/var/cache/apt/archives"
	exec chroot "$1" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root /bin/sh /tmp/in-root.sh' sh "$root" "$cache/pkg-apt-$codename" \
	>"$work/in-root.log" 2>&1 || rc=$?
rm -rf "${out:?}/$codename"
mkdir -p "$out/$codename"
cp "$work/in-root.log" "$root"/tmp/gpudp-check/* "$out/$codename/" 2>/dev/null || true
r=$out/$codename
[ "$rc" = 0 ] || { tail -n 30 "$work/in-root.log" >&2; bad "the steps in the root stopped (exit $rc)"; }
step_ok() { [ -f "$r/$1.rc" ] && [ "$(cat "$r/$1.rc")" = 0 ]; }
if step_ok install && [ "$(grep -c ' install ok installed$' "$r/installed.txt")" -ge 4 ]; then
	ok "apt install ./*.deb: $(cut -d' ' -f1 "$r/installed.txt" | tr '\n' ' ')"
else
	bad "apt install ./*.deb (install.log)"
fi
grep -q 'BUILD_EXCLUSIVE' "$r/install.log" ||
	bad "the module's build was not skipped for want of the driver (install.log)"
if step_ok demo && python3 - "$r/demo.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["packets"] == 222 and r["input_file"]["packets"] == 222, r["packets"]
assert r["engine"]["kind"] == "cpu" and "no GPU" in r["engine"]["note"], r["engine"]
PY
then ok "demo: 222 packets on the CPU with its notice"; else bad "demo (demo.log, demo.json)"; fi
if step_ok fwd_help && grep -q -- '--work' "$r/fwd_help.log"; then
	ok "gpudp-fwd --help"
else
	bad "gpudp-fwd --help (fwd_help.log)"
fi
if [ "$(cat "$r/dkms_nodriver.rc" 2>/dev/null)" = 77 ]; then
	ok "dkms build without the driver: skipped (77)"
else
	bad "dkms build without the driver: exit $(cat "$r/dkms_nodriver.rc" 2>/dev/null), not 77 (dkms_nodriver.log)"
fi
kver=$(cat "$r/kver.txt" 2>/dev/null || true)
if step_ok dkms_build && step_ok dkms_install && grep -q '^gpudp_pin\.ko' "$r/dkms_installed.txt" &&
	grep -q "^$kver " "$r/vermagic.txt"; then
	ok "dkms build and install for $kver: $(cat "$r/dkms_installed.txt")"
else
	bad "dkms build for $kver (sim.log, dkms_build.log, dkms_install.log)"
fi
step_ok purge || bad "apt purge (purge.log)"
left=$(find "$root" -xdev -path "$root/tmp" -prune -o -iname '*gpudp*' -print | sed "s|^$root||")
left=$left$(grep -rIl gpudp "$root/etc" "$root/var/lib/dkms" "$root/usr/lib/systemd" \
	"$root/usr/lib/udev" 2>/dev/null | sed "s|^$root||")
if step_ok purge && [ -z "$left" ] && ! grep -q 'ok installed\|config-files' "$r/after-purge.txt"; then
	ok "apt purge: nothing of gpudp left"
else
	bad "after apt purge: ${left:-packages still known to dpkg (after-purge.txt)}"
fi
exit "$fail"
