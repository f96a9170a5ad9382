#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# gpudp set-up, build, demo and tests on Debian 12, from a fresh clone.
#
#   config/setup.sh demo    install what is missing, build, run the
#                           capture-to-GPU demo on the bundled capture
#   config/setup.sh test    install what is missing, build, run every
#                           test suite, then the unit and dpdk suites
#                           again under ASan/UBSan (build-asan, built
#                           meanwhile against build/'s DPDK); last line:
#                           "N passed, N failed, N skipped"
#   config/setup.sh deps    only install missing Debian packages
#   config/setup.sh build   deps + DPDK source + build into build/
#
# Environment: GPUDP_BUILD (default build), GPUDP_ASAN_BUILD (default
# build-asan), GPUDP_SKIP_ASAN=1 to skip the sanitizer pass,
# GPUDP_MESON_ARGS extra options for the main build's meson setup (in CI,
# CI=true, after config/presets/tests.ini: the drivers the suites use),
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

# Timing: every "==>" line says when it began, in seconds since the start
# ([+N s]); the step before it ends there, and its time is printed ("took N
# s") and kept for the table that cmd_test prints at the end.
t_start=$(date +%s)
step_name='' step_t0=$t_start step_times=()
step_done() {
	local now
	now=$(date +%s)
	if [ -n "$step_name" ]; then
		printf '    took %d s: %s\n' "$((now - step_t0))" "$step_name" >&2
		step_times+=("$(printf '%5d s  %s' "$((now - step_t0))" "$step_name")")
	fi
	step_name='' step_t0=$now
}
say() {
	step_done
	step_name=$*
	printf '\n==> [+%d s] %s\n' "$((step_t0 - t_start))" "$*" >&2
}
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

# Totals of a meson test run, from its testlog.json: "pass fail skip"
# ("0 1 0" when meson wrote none: it ran no test).
totals() {
	python3 - "$1" <<'EOF'
import json, os, sys
p = f = s = 0
if not os.path.exists(sys.argv[1]):
    print(0, 1, 0)
    sys.exit(0)
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

# Jobs in the background, each with its output in a log file:
#   bg_start NAME LOG CMD...   start CMD (a function too), say so
#   bg_wait NAME               wait for it, print its log and its time;
#                              returns its exit status
declare -A bg_pid=() bg_log=()
bg_start() {
	local name=$1 log=$2
	shift 2
	mkdir -p "$(dirname "$log")"
	printf '\n==> [+%d s] %s: started in the background (output: %s)\n' \
		"$(($(date +%s) - t_start))" "$name" "$log" >&2
	(
		t0=$(date +%s) step_name=''
		set +e
		(set -e && "$@")
		rc=$?
		printf '%s: exit %d after %d s in the background\n' "$name" "$rc" \
			"$(($(date +%s) - t0))"
		exit "$rc"
	) >"$log" 2>&1 &
	bg_pid[$name]=$! bg_log[$name]=$log
}
bg_wait() {
	local name=$1 rc=0
	say "$name: waiting for the background job"
	wait "${bg_pid[$name]}" || rc=$?
	step_done
	cat "${bg_log[$name]}"
	step_times+=("   bg    $(tail -n 1 "${bg_log[$name]}")")
	unset "bg_pid[$name]"
	return "$rc"
}

# One debug-kernel stage (test/kmod/debug-kernel.sh ARGS...), started in the
# background (named $1) when its kernel is cached or $2 is 1, else counted
# as a skip; debug_stage_end adds its result to cmd_test's pass/fail/skip/rc.
# $3 names the kernel, $4 how to build it. Each guest is a TCG QEMU with one
# CPU, so the two stages take a core each.
debug_stage_start() {
	local name=$1 wanted=$2 what=$3 how=$4 q=() a
	shift 4
	for a in "$@"; do
		if [ "$a" = -t ]; then q=(-t); fi
	done
	if test/kmod/debug-kernel.sh "${q[@]}" -q 2>/dev/null || [ "$wanted" = 1 ]; then
		bg_start "$name: guest tests on $what" "$build/meson-logs/$name.log" \
			test/kmod/debug-kernel.sh "$@"
		dk_jobs+=("$name: guest tests on $what")
	else
		say "$name: stage on $what SKIPPED: its kernel is not cached ($how)"
		skip=$((skip + 1))
	fi
}
debug_stage_end() {
	local dk=0
	bg_wait "$1" || dk=$?
	case $dk in
	0) pass=$((pass + 1)) ;;
	77) skip=$((skip + 1)) ;;
	*) fail=$((fail + 1)) rc=1 ;;
	esac
}

# The sanitizer tree: config/presets/asan.ini; when the main tree built the
# DPDK subproject, that DPDK (-Ddpdk_build): not built a second time, and
# not instrumented, ASan/UBSan being for gpudp's code. At the lowest CPU
# priority: it runs while the main tree's tests run, in the cores they
# leave idle (most of those tests run one at a time).
asan_tree() {
	local args=(--native-file config/presets/asan.ini) a
	renice -n 19 -p "$BASHPID" >/dev/null
	if [ -f "$build/meson-uninstalled/libdpdk-uninstalled.pc" ]; then
		args+=("-Ddpdk_build=$build")
		# shellcheck disable=SC2086
		for a in ${GPUDP_MESON_ARGS:-}; do
			case $a in -Ddpdk_release=*) args+=("$a") ;; esac
		done
	fi
	build_tree "$asan_build" "${args[@]}"
	step_done
}

# The packages suite, at the lowest CPU priority (a background job).
packages_stage() {
	renice -n 19 -p "$BASHPID" >/dev/null
	meson test -C "$build" --no-rebuild --print-errorlogs --suite packages \
		--logbase packageslog
}

cmd_test() {
	local pass=0 fail=0 skip=0 p f s rc=0 asan=0 dk_jobs=() j main_args=()
	[ "${GPUDP_SKIP_ASAN:-0}" != 1 ] && asan=1
	mapfile -t lists < <(all_lists)
	deps "${lists[@]}"
	# CI (CI=true): the DPDK drivers the suites use (config/presets/tests.ini:
	# no mlx5, no Intel NIC PMDs but the e1000, no testpmd): DPDK builds in
	# half the time. GPUDP_MESON_ARGS comes after it and wins.
	[ "${CI:-}" = true ] && main_args=(--native-file config/presets/tests.ini)
	# shellcheck disable=SC2086
	build_tree "$build" "${main_args[@]}" ${GPUDP_MESON_ARGS:-}
	# the sanitizer tree builds meanwhile, in the background, at nice 19
	[ "$asan" = 1 ] && bg_start "sanitizer tree $asan_build" \
		"$build/meson-logs/${asan_build##*/}-build.log" asan_tree
	# the packages suite (test/packages: build the Debian packages, check
	# them in Debian 12 and 13 roots; about 6 minutes of two cores) in the
	# background at nice 19 too, in what the suites below leave idle
	bg_start "packages suite" "$build/meson-logs/packages-stage.log" packages_stage
	say "meson test: all suites but fuzz and packages ($build)"
	meson test -C "$build" --no-rebuild --print-errorlogs --no-suite fuzz \
		--no-suite packages || rc=1
	read -r p f s < <(totals "$build/meson-logs/testlog.json")
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	if [ "$asan" = 1 ] && ! bg_wait "sanitizer tree $asan_build"; then
		say "the sanitizer tree $asan_build did not build: counted as a failure"
		fail=$((fail + 1)) rc=1 asan=0
	fi
	# kmod, second stage: the guest tests on a KASAN/lockdep/kmemleak kernel
	# (test/kmod/debug-kernel.sh). Runs when that kernel is cached
	# (~/.cache/gpudp), or when GPUDP_DEBUG_KERNEL=1 asks to build it (6-10
	# min on 2 cores; the default in CI, CI=true); otherwise it counts as a
	# skip and says why.
	local want_dk=${GPUDP_DEBUG_KERNEL:-0}
	[ "${CI:-}" = true ] && want_dk=${GPUDP_DEBUG_KERNEL:-1}
	debug_stage_start kmod-debug "$want_dk" "the debug kernel" \
		"GPUDP_DEBUG_KERNEL=1 builds it, 6-10 min" -b "$build/test/kmod"
	# The same on Debian 13's 6.12 (debug-kernel.sh -t, built with gcc-14 in
	# the Debian 13 root): when that kernel is cached, or when
	# GPUDP_DEBUG_KERNEL_DEBIAN13=1 asks to build it (another 10 min or so,
	# so not by default, in CI neither). Both stages at once: a core each.
	debug_stage_start kmod-debug-debian13 "${GPUDP_DEBUG_KERNEL_DEBIAN13:-0}" \
		"the Debian 13 debug kernel" \
		"GPUDP_DEBUG_KERNEL_DEBIAN13=1 builds it, about 10 min" -t -b "$build/test/kmod"
	for j in "${dk_jobs[@]}"; do
		debug_stage_end "$j"
	done
	# fuzz: each libFuzzer target replays its corpus, then fuzzes for
	# GPUDP_FUZZ_SECONDS (default 60; 30 in CI, CI=true, to keep the
	# whole run under 30 minutes on 2 cores), with the cores to itself
	[ "${CI:-}" = true ] && export GPUDP_FUZZ_SECONDS=${GPUDP_FUZZ_SECONDS:-30}
	say "meson test: fuzz suite, ${GPUDP_FUZZ_SECONDS:-60} s per target ($build)"
	meson test -C "$build" --no-rebuild --print-errorlogs --suite fuzz --logbase fuzzlog || rc=1
	read -r p f s < <(totals "$build/meson-logs/fuzzlog.json")
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	local pk=0
	bg_wait "packages suite" || pk=1
	p=0 f=0 s=0
	if [ -f "$build/meson-logs/packageslog.json" ]; then
		read -r p f s < <(totals "$build/meson-logs/packageslog.json")
	fi
	# meson itself failed (no test result): one failure
	[ "$pk" = 1 ] && [ "$f" = 0 ] && f=1
	[ "$f" = 0 ] || rc=1
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	# last, with the cores to itself: the sanitizer tree's unit and dpdk suites
	if [ "$asan" = 1 ] && [ -f "$asan_build/build.ninja" ]; then
		say "meson test: unit and dpdk suites under ASan/UBSan ($asan_build)"
		ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
			meson test -C "$asan_build" --no-rebuild --print-errorlogs \
			--suite unit --suite dpdk || rc=1
		read -r p f s < <(totals "$asan_build/meson-logs/testlog.json")
		pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	fi
	step_done
	printf '\n==> tests took %d s in all; each step:\n' "$(($(date +%s) - t_start))" >&2
	printf '%s\n' "${step_times[@]}" >&2
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
	sed -n '4,24p' "$0" | sed 's/^# \{0,1\}//'
	[ -n "${1:-}" ] && [ "$1" != -h ] && [ "$1" != --help ] && exit 2
	exit 0
	;;
esac
