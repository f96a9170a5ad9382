#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Runs inside a fresh Debian root (test/packages/check-root.sh): installs
# gpudp's packages from /tmp/gpudp-debs as a user would, runs them, builds
# the module with DKMS, purges them. Each step's output is in
# /tmp/gpudp-check/STEP.log; check-root.sh judges the results from outside.
set -eu
export DEBIAN_FRONTEND=noninteractive LC_ALL=C
res=/tmp/gpudp-check
mkdir -p "$res"
step() {
	name=$1
	shift
	echo "== $name: $*"
	if "$@" >"$res/$name.log" 2>&1; then
		echo 0 >"$res/$name.rc"
	else
		rc=$?
		echo "$rc" >"$res/$name.rc"
		tail -n 20 "$res/$name.log"
		echo "== $name: exit $rc"
		return "$rc"
	fi
}
step update apt-get -q update
# a machine with its kernel's headers, as DKMS users have: the root's
# release's kernel (none is booted; the headers are what DKMS builds for)
step headers apt-get -q -y install linux-headers-amd64
# 1. every package at once, on a root without the NVIDIA driver: the
#    module's build is skipped, nothing fails
cd /tmp/gpudp-debs
# shellcheck disable=SC2046 # the file names have no spaces
step install apt-get -q -y install $(ls ./*.deb)
cd /
dpkg-query -W -f='${Package} ${Status}\n' 'gpudp*' 'libgpudp*' >"$res/installed.txt"
# 2. the demo from the installed app on the installed capture
step demo gpudp-capture -l 0 --no-huge -m 512 --no-pci --no-shconf \
	--log-level='lib.*:error' -- --pcap /usr/share/gpudp/demo/sample.pcap \
	--match /usr/share/gpudp/demo/patterns.txt --json "$res/demo.json"
step fwd_help gpudp-fwd --help
# 3. DKMS: the root's kernel headers (one kernel)
kver=$(ls /lib/modules)
ver=$(cat /tmp/gpudp-pin-version)
echo "$kver" >"$res/kver.txt"
# without a driver's Module.symvers: skipped (77), as the postinst did
rc=0
dkms build "gpudp-pin/$ver" -k "$kver" >"$res/dkms_nodriver.log" 2>&1 || rc=$?
echo "$rc" >"$res/dkms_nodriver.rc"
# the test provider in place of the NVIDIA driver: its Module.symvers
step sim make -C "/lib/modules/$kver/build" M=/tmp/gpudp-sim/test/kmod/sim modules
export P2P_SYMVERS=/tmp/gpudp-sim/test/kmod/sim/Module.symvers
step dkms_build dkms build "gpudp-pin/$ver" -k "$kver"
step dkms_install dkms install "gpudp-pin/$ver" -k "$kver"
ls /lib/modules/"$kver"/updates/dkms/ >"$res/dkms_installed.txt"
for f in /lib/modules/"$kver"/updates/dkms/gpudp_pin.ko*; do
	modinfo -F vermagic "$f" >"$res/vermagic.txt"
done
# 4. purge
# shellcheck disable=SC2046
step purge apt-get -q -y purge $(dpkg-query -W -f='${Package}\n' 'gpudp*' 'libgpudp*')
dpkg-query -W -f='${Package} ${Status}\n' 'gpudp*' 'libgpudp*' >"$res/after-purge.txt" 2>&1 || true
echo "== done"
