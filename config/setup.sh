#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# gpudp set-up, build, demo and tests on Debian 12, from a fresh clone.
#
#   config/setup.sh demo    install what is missing, build, run the
#                           capture-to-GPU demo on the bundled capture
#   config/setup.sh test    install what is missing, build, run every
#                           test suite, then the unit and dpdk suites
#                           again under ASan/UBSan; last line:
#                           "N passed, N failed, N skipped"
#   config/setup.sh deps    only install missing Debian packages
#   config/setup.sh build   deps + DPDK source + build into build/
#
# Environment: GPUDP_BUILD (default build), GPUDP_ASAN_BUILD (default
# build-asan), GPUDP_SKIP_ASAN=1 to skip the sanitizer pass,
# GPUDP_MESON_ARGS extra options for the main build's meson setup,
# GPUDP_DEBUG_KERNEL=1|0 to build (or not) the kmod debug kernel when it is
# not cached (default: 1 in CI, 0 elsewhere), GPUDP_DEBUG_KERNEL_DEBIAN13=1
# the same for Debian 13's (default 0), GPUDP_FUZZ_SECONDS how long
# each fuzz target runs (default 60, 30 in CI).
# See doc/getting-started.md.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${GPUDP_BUILD:-build}
asan_build=${GPUDP_ASAN_BUILD:-build-asan}

say() { printf '\n==> %s\n' "$*" >&2; }
die() { printf 'setup: ERROR: %s\n' "$*" >&2; exit 1; }

as_root() {
	if [ "$(id -u)" = 0 ]; then
		"$@"
	elif command -v sudo >/dev/null; then
		sudo "$@"
	else
		die "need root (or sudo) to run: $*"
	fi
}

# Install the packages listed in config/packages/<list>.txt that are
# not installed yet (one name per line, '#' comments).
deps() {
	local lists=("$@") want=() missing=() p
	for l in "${lists[@]}"; do
		[ -f "config/packages/$l.txt" ] || continue
		while read -r p; do
			p=${p%%#*}
			p=${p//[[:space:]]/}
			[ -n "$p" ] && want+=("$p")
		done <"config/packages/$l.txt"
	done
	for p in "${want[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
			missing+=("$p")
	done
	if [ ${#missing[@]} -eq 0 ]; then
		say "Debian packages: all ${#want[@]} present"
		return
	fi
	say "installing ${#missing[@]} Debian packages: ${missing[*]}"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get -q -o DPkg::Lock::Timeout=600 update >/dev/null
	as_root env DEBIAN_FRONTEND=noninteractive apt-get -q -y -o DPkg::Lock::Timeout=600 \
		install --no-install-recommends "${missing[@]}" >/dev/null
}

all_lists() {
	local f
	for f in config/packages/*.txt; do basename "$f" .txt; done
}

# meson setup (once) and ninja for build dir $1, extra meson args after.
# The DPDK source fetched is the release -Ddpdk_release=R names, if any.
build_tree() {
	local dir=$1 a release=22.11
	shift
	for a in "$@"; do
		case $a in -Ddpdk_release=*) release=${a#-Ddpdk_release=} ;; esac
	done
	subprojects/fetch-dpdk.sh --release "$release"
	if [ ! -f "$dir/build.ninja" ]; then
		say "configuring $dir"
		meson setup "$dir" "$@"
	fi
	say "building $dir"
	ninja -C "$dir"
}

# Totals of a meson test run, from its testlog.json: "pass fail skip".
totals() {
	python3 - "$1" <<'EOF'
import json, sys
p = f = s = 0
for line in open(sys.argv[1]):
    r = json.loads(line).get("result")
    if r in ("OK", "EXPECTEDFAIL"):
        p += 1
    elif r == "SKIP":
        s += 1
    else:
        f += 1
print(p, f, s)
EOF
}

cmd_build() {
	deps build
	# shellcheck disable=SC2086
	build_tree "$build" ${GPUDP_MESON_ARGS:-}
}

# One debug-kernel stage (test/kmod/debug-kernel.sh ARGS...): run when its
# kernel is cached or $1 is 1, else counted as a skip; the result is added
# to cmd_test's pass/fail/skip/rc. $2 names the kernel, $3 how to build it.
debug_stage() {
	local want=$1 what=$2 how=$3 q=() a dk=0
	shift 3
	for a in "$@"; do
		if [ "$a" = -t ]; then q=(-t); fi
	done
	if test/kmod/debug-kernel.sh "${q[@]}" -q 2>/dev/null || [ "$want" = 1 ]; then
		say "kmod: guest tests on $what"
		test/kmod/debug-kernel.sh "$@" || dk=$?
		case $dk in
		0) pass=$((pass + 1)) ;;
		77) skip=$((skip + 1)) ;;
		*) fail=$((fail + 1)) rc=1 ;;
		esac
	else
		say "kmod: stage on $what SKIPPED: its kernel is not cached ($how)"
		skip=$((skip + 1))
	fi
}

cmd_test() {
	local t0 pass=0 fail=0 skip=0 p f s rc=0
	t0=$(date +%s)
	mapfile -t lists < <(all_lists)
	deps "${lists[@]}"
	# shellcheck disable=SC2086
	build_tree "$build" ${GPUDP_MESON_ARGS:-}
	say "meson test: all suites but fuzz ($build)"
	meson test -C "$build" --no-rebuild --print-errorlogs --no-suite fuzz || rc=1
	read -r p f s < <(totals "$build/meson-logs/testlog.json")
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	# fuzz: each libFuzzer target replays its corpus, then fuzzes for
	# GPUDP_FUZZ_SECONDS (default 60; 30 in CI, CI=true, to keep the
	# whole run under 30 minutes on 2 cores), with the cores to itself
	[ "${CI:-}" = true ] && export GPUDP_FUZZ_SECONDS=${GPUDP_FUZZ_SECONDS:-30}
	say "meson test: fuzz suite, ${GPUDP_FUZZ_SECONDS:-60} s per target ($build)"
	meson test -C "$build" --no-rebuild --print-errorlogs --suite fuzz --logbase fuzzlog || rc=1
	read -r p f s < <(totals "$build/meson-logs/fuzzlog.json")
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	# kmod, second stage: the guest tests on a KASAN/lockdep/kmemleak kernel
	# (test/kmod/debug-kernel.sh). Runs when that kernel is cached
	# (~/.cache/gpudp), or when GPUDP_DEBUG_KERNEL=1 asks to build it (6-10
	# min on 2 cores; the default in CI, CI=true); otherwise it counts as a
	# skip and says why.
	local want_dk=${GPUDP_DEBUG_KERNEL:-0}
	[ "${CI:-}" = true ] && want_dk=${GPUDP_DEBUG_KERNEL:-1}
	debug_stage "$want_dk" "the debug kernel" \
		"GPUDP_DEBUG_KERNEL=1 builds it, 6-10 min" -b "$build/test/kmod"
	# The same on Debian 13's 6.12 (debug-kernel.sh -t, built with gcc-14 in
	# the Debian 13 root): when that kernel is cached, or when
	# GPUDP_DEBUG_KERNEL_DEBIAN13=1 asks to build it (another 10 min or so,
	# so not by default, in CI neither).
	debug_stage "${GPUDP_DEBUG_KERNEL_DEBIAN13:-0}" "the Debian 13 debug kernel" \
		"GPUDP_DEBUG_KERNEL_DEBIAN13=1 builds it, about 10 min" -t -b "$build/test/kmod"
	if [ "${GPUDP_SKIP_ASAN:-0}" != 1 ]; then
		build_tree "$asan_build" --native-file config/presets/asan.ini
		say "meson test: unit and dpdk suites under ASan/UBSan ($asan_build)"
		ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
			meson test -C "$asan_build" --no-rebuild --print-errorlogs \
			--suite unit --suite dpdk || rc=1
		read -r p f s < <(totals "$asan_build/meson-logs/testlog.json")
		pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	fi
	say "tests took $(($(date +%s) - t0)) s in all"
	echo "$pass passed, $fail failed, $skip skipped"
	[ "$fail" -eq 0 ] && [ "$rc" -eq 0 ]
}

cmd_demo() {
	deps build
	# shellcheck disable=SC2086
	build_tree "$build" ${GPUDP_MESON_ARGS:-}
	exec "$top/app/gpudp-capture/demo.sh" "$build"
}

case "${1:-}" in
demo) cmd_demo ;;
test) cmd_test ;;
build) cmd_build ;;
deps)
	mapfile -t lists < <(all_lists)
	deps "${lists[@]}"
	;;
*)
	sed -n '4,22p' "$0" | sed 's/^# \{0,1\}//'
	[ -n "${1:-}" ] && [ "$1" != -h ] && [ "$1" != --help ] && exit 2
	exit 0
	;;
esac
