#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Host side of one e2e test: one QEMU TCG boot (doc/e2e.md).

1. builds an initramfs: test/e2e/guest-init.sh as /init, busybox, the
   forwarder (stripped) and the shared libraries it needs, uio and
   uio_pci_generic from the guest kernel, and for the kmod modes
   e2e-simctl and the two .ko files;
2. boots the Debian kernel with test/qemu/boot.sh (isa-debug-exit status,
   serial marker, splat check), an emulated NIC on QEMU's UDP socket
   netdev, 2 MiB hugepages;
3. waits for the guest's HELLO frame, then sends the test frames
   (e2e_frame.h; never more than --window unanswered, so nothing is dropped
   for lack of descriptors), checks every frame that comes back (the frame
   it sent, byte for byte, with the MAC addresses swapped) and, once all
   are back, sends one DONE frame;
4. passes only if the boot passed, the guest counted N valid and N
   forwarded frames, and N came back correct (kmod-kill: at least N before
   the kill, none wrong); in the kmod modes also only if lib/mem pinned
   nothing while the frames were forwarded (gpudp_mem_pin_stats(), sampled
   by the guest once the pool exists and once the frames are through).

Mode gpudp-fwd runs the project's app (app/gpudp-fwd, cpu mode, host
memory, macswap) in the guest instead of e2e-fwd. It sends no HELLO, so the
host sends frame 0 alone (QEMU holds it until the guest's port is up), then
the rest once it came back; no DONE (the app stops after N packets,
--count). The app's final counters (--json) must match the host's.

Mode capture runs gpudp-capture (a test build with the TEST-ONLY gpudev
driver gpu_e2e_sim over the simulator's memory) with --mem device --engine
cpu: the e1000 DMAs into the device pool, the CPU analyses the packets in
place through rte_gpu_mem_cpu_map. The host replays --pcap (frames padded to
60 bytes, as the NIC delivers them) once the app runs; its JSON report must
equal the report of --ref-app (gpudp-capture on the host, CPU path) on those
frames, flow timestamps aside, with no pin while receiving.

Exit status: 0 pass, 1 fail, 77 skip (no QEMU, no guest kernel, no
busybox, or for the kmod modes no .ko files). Only 127.0.0.1 is used.
"""
import argparse
import glob
import json
import os
import re
import select
import shutil
import socket
import struct
import subprocess
import sys
import time

SKIP = 77
ETHERTYPE = 0x88b5
HOST_MAC = bytes.fromhex("020000e2e001")
GUEST_MAC = bytes.fromhex("525400123456")
BCAST = b"\xff" * 6
HDR_LEN = 24
LEN_MIN, LEN_MAX = 60, 1514
PATTERN_LEN = 1 << 16
STRIDE = 977
MASK64 = (1 << 64) - 1
NIC_ADDR = "05.0"  # guest PCI address 0000:00:05.0 (guest-init.sh)


def log(msg):
    print(f"e2e: {msg}", flush=True)


def wait_boot(boot, timeout):
    """QEMU's output once it exits; killed after TIMEOUT seconds."""
    try:
        return boot.communicate(timeout=timeout)[0]
    except subprocess.TimeoutExpired:
        boot.kill()
        return boot.communicate()[0]


def guest_json(text, what):
    """The last 'E2E-GUEST: WHAT json {...}' line of the serial log, parsed ({} if none)."""
    m = re.findall(r"^E2E-GUEST: " + re.escape(what) + r" json (.*)$", text, re.M)
    if m:
        try:
            return json.loads(m[-1])
        except ValueError as e:
            log(f"{what} json: {e}")
    return {}


def skip(msg):
    print(f"SKIP: {msg}", flush=True)
    sys.exit(SKIP)


# ---- e2e_frame.h, re-implemented ----
def pattern_table():
    state, out = 0x6770756470, bytearray()
    for _ in range(PATTERN_LEN // 8):
        state = (state + 0x9E3779B97F4A7C15) & MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        out += struct.pack("<Q", z ^ (z >> 31))
    return bytes(out)


PATTERN2 = None  # the table twice, to slice across the wrap


def frame_len(seq):
    return LEN_MIN + (seq * 263) % (LEN_MAX - LEN_MIN + 1)


def test_frame(seq, dst, src, corrupt=False):
    n = frame_len(seq)
    start = (seq * STRIDE + HDR_LEN) % PATTERN_LEN
    f = (dst + src + struct.pack(">H", ETHERTYPE) + b"GPDT" +
         struct.pack(">IH", seq, n) + PATTERN2[start:start + n - HDR_LEN])
    if corrupt:  # one flipped bit in the last payload byte
        f = f[:-1] + bytes([f[-1] ^ 0x10])
    return f


# ---- the generator ----
class Generator:
    def __init__(self, sock, qemu_addr, frames, window, kill_mode, corrupt=(), app=None):
        self.sock, self.qemu_addr = sock, qemu_addr
        # app: the guest runs gpudp-fwd, which sends no HELLO: app() says
        # when its port is started; the first frame back stands for the
        # HELLO, and no DONE is sent
        self.app, self.app_ready = app is not None, app
        self.frames, self.window, self.kill_mode = frames, window, kill_mode
        self.corrupt = set(corrupt)  # seqs sent with a wrong byte: must not come back
        self.sent = 0
        self.back = set()   # seqs returned correct
        self.bad = 0        # returned test frames that differ from the expected
        self.dup = 0
        self.hellos = 0     # HELLO frames (the guest repeats them until traffic starts)
        self.other = 0      # frames that are neither
        self.hello_at = None
        self.first_sent_at = self.last_back_at = None
        self.guest_mac = GUEST_MAC if app else None
        self.bad_report = []

    def _receive(self, now):
        while True:
            try:
                d = self.sock.recv(65536)
            except BlockingIOError:
                return
            if len(d) >= HDR_LEN and d[12:14] == struct.pack(">H", ETHERTYPE):
                magic = d[14:18]
                if magic == b"GPDH":
                    self.hellos += 1
                    if self.hello_at is None:
                        self.hello_at = now
                        self.guest_mac = d[6:12]
                        log(f"HELLO from {self.guest_mac.hex(':')} "
                            f"{now - self.t0:.1f} s after QEMU start")
                    continue
                if magic == b"GPDT":
                    self._check(d, now)
                    continue
            self.other += 1

    def _check(self, d, now):
        seq = struct.unpack(">I", d[18:22])[0]
        want = None
        if seq < self.sent and seq not in self.corrupt:
            want = test_frame(seq, HOST_MAC, self.guest_mac)
        if want is None or d != want:
            self.bad += 1
            if len(self.bad_report) < 5:
                diff = next((i for i in range(min(len(d), len(want or b"")))
                             if d[i] != want[i]), None) if want else None
                self.bad_report.append(
                    f"seq {seq}: {len(d)} bytes back, want "
                    f"{len(want) if want else '?'}; first difference at byte {diff}")
            return
        if seq in self.back:
            self.dup += 1
            return
        self.back.add(seq)
        self.last_back_at = now
        if self.app and self.hello_at is None:
            self.hello_at = now
            log(f"first frame back {now - self.t0:.1f} s after QEMU start")

    def run(self, t0, boot, hello_timeout, stall_s):
        """Run until done, stalled, or QEMU gone. Returns a reason string."""
        self.t0 = t0
        self.sock.setblocking(False)
        last_progress = time.monotonic()
        while True:
            now = time.monotonic()
            if boot.poll() is not None:
                return "QEMU exited"
            if self.hello_at is None and now - t0 > hello_timeout:
                return f"no HELLO from the guest within {hello_timeout} s"
            if self.app and self.sent == 0 and self.app_ready():
                # frame 0 alone, once the app started its port (QEMU drops
                # what arrives before the guest set the NIC up; after, it
                # holds frames until the link is up)
                self.sock.sendto(test_frame(0, self.guest_mac, HOST_MAC), self.qemu_addr)
                self.sent = 1
            if self.hello_at is not None:
                if self.app and len(self.back) >= self.frames:
                    return "all frames back"
                if len(self.back) >= self.frames - len(self.corrupt) and not self.kill_mode:
                    # one DONE: the guest may stop (e2e_frame.h); the last
                    # frame the host ever sends
                    n = frame_len(0)
                    self.sock.sendto(self.guest_mac + HOST_MAC + struct.pack(">H", ETHERTYPE)
                                     + b"GPDD" + struct.pack(">IH", 0, n) + bytes(n - HDR_LEN),
                                     self.qemu_addr)
                    return "all frames back"
                while (self.sent < self.frames and
                       self.sent - len(self.back) - self.bad < self.window + len(self.corrupt)):
                    f = test_frame(self.sent, self.guest_mac, HOST_MAC,
                                   self.sent in self.corrupt)
                    try:
                        self.sock.sendto(f, self.qemu_addr)
                    except BlockingIOError:
                        break
                    if self.first_sent_at is None or self.app and self.sent == 1:
                        self.first_sent_at = now
                    self.sent += 1
                if self.last_back_at and self.last_back_at > last_progress:
                    last_progress = self.last_back_at
                if self.first_sent_at and now - max(last_progress, self.first_sent_at) > stall_s:
                    return f"no frame came back for {stall_s} s"
            r, _, _ = select.select([self.sock], [], [], 0.05)
            if r:
                self._receive(time.monotonic())


def log_has(path, regex):
    """A function: has the (growing) file at path a line matching regex?"""
    rx = re.compile(regex.encode(), re.M)

    def has():
        try:
            with open(path, "rb") as f:
                return rx.search(f.read()) is not None
        except OSError:
            return False
    return has


# ---- initramfs ----
def shared_libs(exe):
    """(dest, src) for the dynamic loader and every library ldd lists."""
    out = subprocess.run(["ldd", exe], capture_output=True, text=True)
    if out.returncode != 0:
        return []  # static
    libs = []
    for line in out.stdout.splitlines():
        m = re.search(r"(?:=>\s*)?(/\S+)\s+\(0x", line)
        if m:
            libs.append(m.group(1))
    return [(p.lstrip("/"), p) for p in libs]


def pick_kver(want):
    if want:
        return want if os.path.exists(f"/boot/vmlinuz-{want}") else None
    cands = []
    for v in glob.glob("/boot/vmlinuz-*"):
        rel = v[len("/boot/vmlinuz-"):]
        if glob.glob(f"/lib/modules/{rel}/kernel/drivers/uio/uio_pci_generic.ko*"):
            cands.append(rel)
    cands.sort(key=lambda r: [(0, int(x), "") if x.isdigit() else (1, 0, x)
                              for x in re.split(r"[.-]", r)])
    return cands[-1] if cands else None


def module_file(kver, name):
    for p in glob.glob(f"/lib/modules/{kver}/kernel/drivers/uio/{name}.ko*"):
        return p
    return None


def stage_module(src, work):
    """Plain .ko (the guest's busybox insmod may not decompress)."""
    if src.endswith(".ko"):
        return src
    base = os.path.basename(src)
    dst = os.path.join(work, re.sub(r"\.ko\..*$", ".ko", base))
    tool = {"xz": "xz", "zst": "zstd", "gz": "gzip"}[src.rsplit(".", 1)[1]]
    with open(dst, "wb") as f:
        subprocess.run([tool, "-dc", src], stdout=f, check=True)
    return dst


# ---- mode capture: gpudp-capture in the guest, a capture file replayed ----
def read_pcap(path):
    """The frames of a pcap file (any byte order, us or ns timestamps)."""
    data = open(path, "rb").read()
    e = "<" if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    off, out = 24, []
    while off + 16 <= len(data):
        cap = struct.unpack_from(e + "I", data, off + 8)[0]
        out.append(data[off + 16:off + 16 + cap])
        off += 16 + cap
    return out


def pad_frame(f):
    """What the NIC delivers: Ethernet's 60-byte minimum (QEMU's e1000 pads runts)."""
    return f + bytes(60 - len(f)) if len(f) < 60 else f


def write_pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", 1700000000, i, len(fr), len(fr)) + fr)


# report fields that must be equal; flows without their timestamps (the
# guest stamps packets on arrival, the file has capture times)
CAP_KEYS = ("packets", "bytes", "captured_bytes", "snapped", "protocols", "size_histogram",
            "flows_total", "top_talkers")
CAP_FILTER = "tcp or icmp6 or vlan 300"  # guest-init.sh's, with --filter-out there


def capture_view(js):
    v = {k: js.get(k) for k in CAP_KEYS}
    v["filter"] = {k: x for k, x in (js.get("filter") or {}).items()
                   if k in ("expression", "matched_packets", "matched_bytes")}
    v["flows"] = [{k: x for k, x in fl.items() if k not in ("first_ns", "last_ns")}
                  for fl in js.get("flows", [])]
    v["drops"] = js.get("drops")
    return v


def qemu_socket_drops(port):
    """Datagrams the kernel dropped on QEMU's UDP socket (127.0.0.1:port), -1 if unknown."""
    try:
        for line in open("/proc/net/udp").read().splitlines()[1:]:
            f = line.split()
            if f[1] == "0100007F:%04X" % port:
                return int(f[-1])
    except (OSError, ValueError, IndexError):
        pass
    return -1


def capture_finish(a, boot, sock, qemu_addr, serial, frames, work, t0, t_start, big_files):
    """Send the capture once the app runs; compare its report with the app's on the file."""
    # the reference: the app on the host, CPU path, on the frames as the NIC delivers them
    ref_pcap = os.path.join(work, "replayed.pcap")
    ref_json = os.path.join(work, "reference.json")
    write_pcap(ref_pcap, frames)
    r = subprocess.run([a.ref_app, "-l", "0", "--no-huge", "-m", "256", "--no-pci",
                        "--no-shconf", "--log-level=lib.*:error", "--", "--reader", "pmd",
                        "--pcap", ref_pcap, "--cpu", "--quiet", "--json", ref_json,
                        "--filter", CAP_FILTER],
                       capture_output=True, text=True, timeout=120)
    ref = json.load(open(ref_json)) if r.returncode == 0 and os.path.exists(ref_json) else {}
    if not ref:
        log(f"reference run failed ({r.returncode}): {r.stderr[-400:]}")
    ready = log_has(serial, r"^gpudp-capture: analysing on ")
    sent, t_ready, t_sent = 0, None, None
    while boot.poll() is None and time.monotonic() - t0 < a.timeout:
        if ready():
            t_ready = time.monotonic()
            break
        time.sleep(0.05)
    if t_ready is not None:
        # one frame every 10 ms: nothing tells the host how far the guest
        # got (the app sends nothing back), and QEMU's UDP socket (the
        # kernel's default receive buffer) overflows while the TCG guest
        # keeps QEMU busy: 16 frames every 5 ms lost the last 52 of 222
        # there, 4 every 10 ms lost 5; the drops show in /proc/net/udp
        for fr in frames:
            sock.sendto(fr, qemu_addr)
            sent += 1
            time.sleep(0.01)
        t_sent = time.monotonic()
    udp_drops = qemu_socket_drops(qemu_addr[1])
    boot_out = wait_boot(boot, a.timeout + 10)
    t_end = time.monotonic()
    sock.close()
    text = open(serial, "rb").read().decode("utf-8", "replace") if os.path.exists(serial) else ""
    for line in text.splitlines():
        if line.startswith(("E2E-", "GPUDP-QEMU", "gpudp-capture:", "gpudp.mem:")) and \
                not line.startswith("E2E-GUEST: capture json"):
            print("  guest| " + line.rstrip())
    print(boot_out.rstrip())
    js = guest_json(text, "capture")
    n = len(frames)
    mem, rx, eng = js.get("mem") or {}, js.get("rx") or {}, js.get("engine") or {}
    pins = mem.get("pins") or {}
    sim = re.findall(r"^E2E-GPUSIM: close (.*)$", text, re.M)
    simc = dict(kv.split("=", 1) for kv in sim[-1].split()) if sim else {}
    got, want = capture_view(js), capture_view(ref)
    diff = [k for k in want if got.get(k) != want.get(k)]
    checks = [
        ("the boot passed (guest status 0, marker, no splat)", boot.returncode == 0),
        ("EAL chose IOVA as PA and probed the e1000 with net_e1000_em",
         "Selected IOVA mode 'PA'" in text and
         re.search(r"Probe PCI driver: net_e1000_em .* device: 0000:00:05\.0", text) is not None),
        (f"the host sent the {n} frames of {os.path.basename(a.pcap)} once the app ran, "
         f"QEMU's socket dropped none (drops={udp_drops})", sent == n and udp_drops == 0),
        (f"the reference report (the app on the file, CPU path) counts {n} packets",
         ref.get("packets") == n),
        ("gpudp-capture received into a device pool (simulated GPU memory, pin backend kmod), "
         "analysed on the CPU through rte_gpu_mem_cpu_map",
         (mem.get("type"), mem.get("pin"), mem.get("cpu_mapped"), eng.get("kind")) ==
         ("device", "kmod", True, "cpu")),
        (f"gpudp-capture received {n} packets, none missed, in error, chained or unreadable",
         rx.get("packets") == n and rx.get("missed") == 0 and rx.get("errors") == 0 and
         rx.get("nombuf") == 0 and rx.get("multi_segment") == 0 and
         (js.get("drops") or {}).get("staging") == 0),
        ("its report equals the reference: totals, protocols, histogram, every flow "
         "(but timestamps), talkers, drops" + (f" (differ: {', '.join(diff)})" if diff else ""),
         bool(js) and bool(ref) and not diff),
        ("the filter's matches were written out of GPU memory to pcapng "
         f"({(js.get('filter') or {}).get('written')} of "
         f"{(js.get('filter') or {}).get('matched_packets')})",
         (js.get("filter") or {}).get("written") ==
         (ref.get("filter") or {}).get("matched_packets", -1) > 0),
        ("lib/mem pinned the pool when it was created "
         f"(at_pool_creation={pins.get('at_pool_creation')})",
         (pins.get("at_pool_creation") or 0) >= 1),
        (f"no pin while receiving and analysing (while_running={pins.get('while_running')})",
         pins.get("while_running") == 0),
        ("the test gpudev driver had no allocation or CPU mapping left at close "
         f"({sim[-1] if sim else 'no close line'})",
         simc.get("allocs_live") == "0" and simc.get("cpu_maps_live") == "0" and
         int(simc.get("allocs_total", "0")) >= 1),
    ]
    ok = all(c for _, c in checks)
    for what, c in checks:
        log(f"{'ok  ' if c else 'FAIL'} {what}")
    if diff:
        for k in diff[:5]:
            log(f"  {k}: guest {json.dumps(got.get(k))[:300]}")
            log(f"  {k}: reference {json.dumps(want.get(k))[:300]}")
    log(f"figures: sent={sent} qemu_socket_drops={udp_drops} app_packets={js.get('packets')} app_bytes={js.get('bytes')} "
        f"ref_packets={ref.get('packets')} ref_bytes={ref.get('bytes')} "
        f"flows={js.get('flows_total')}/{ref.get('flows_total')} "
        f"pins_created={pins.get('at_pool_creation')} pins_running={pins.get('while_running')} "
        f"gpu_bytes={mem.get('gpu_bytes')} analysis_busy_ms={eng.get('busy_ms')}")
    if ok and not os.environ.get("E2E_KEEP"):
        for f in big_files:
            os.remove(f)
    log(f"times: QEMU start to app ready {(t_ready - t0) if t_ready else float('nan'):.1f} s, "
        f"sending {(t_sent - t_ready) if t_sent else 0:.2f} s, QEMU total {t_end - t0:.1f} s, "
        f"test total {t_end - t_start:.1f} s")
    print(f"{sum(1 for _, c in checks if c)} passed, {sum(1 for _, c in checks if not c)} failed")
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mode", required=True,
                    choices=["hugepage", "kmod", "kmod-free", "kmod-kill", "dmabuf", "dmabuf-free",
                             "gpudp-fwd",
                             "capture"])
    ap.add_argument("--name", default=None, help="test name (log file names)")
    ap.add_argument("--fwd", required=True, help="the e2e-fwd executable")
    ap.add_argument("--app", help="the gpudp-fwd executable (mode gpudp-fwd)")
    ap.add_argument("--capture-app", help="gpudp-capture-e2e, the test build of gpudp-capture "
                    "with the TEST-ONLY gpudev driver gpu_e2e_sim (mode capture)")
    ap.add_argument("--ref-app", help="gpudp-capture, run on the host for the reference report "
                    "(mode capture)")
    ap.add_argument("--pcap", help="capture file the host replays into the NIC (mode capture)")
    ap.add_argument("--simctl", help="the e2e-simctl executable (kmod modes)")
    ap.add_argument("--sim-ko", help="nvidia_p2p_sim.ko (kmod modes)")
    ap.add_argument("--pin-ko", help="gpudp_pin.ko (kmod modes)")
    ap.add_argument("--qemu-dir", required=True, help="test/qemu (the harness)")
    ap.add_argument("--init", required=True, help="the guest /init")
    ap.add_argument("--work", required=True, help="scratch directory")
    ap.add_argument("--kver", default=os.environ.get("KVER"),
                    help="guest kernel release (default: newest in /boot with uio)")
    ap.add_argument("--nic", default="e1000", choices=["e1000", "virtio"])
    ap.add_argument("--frames", type=int, default=None,
                    help="test frames (default 4096; kmod-kill: frames before the kill, 1000)")
    ap.add_argument("--window", type=int, default=64,
                    help="most frames in flight (default 64, below the 256 rx descriptors)")
    ap.add_argument("--gpu-bytes", type=int, default=4 << 20)
    ap.add_argument("--corrupt", type=int, default=0,
                    help="send this many test frames with one wrong bit: the guest must "
                         "flag exactly those and not forward them (shows the check bites)")
    ap.add_argument("--repin", type=int, default=0,
                    help="kmod: the guest re-registers GPU memory in this many bursts (fault "
                         "injection): exactly that many pins must be seen while forwarding "
                         "(shows the zero-pin check bites)")
    ap.add_argument("--timeout", type=int, default=150, help="QEMU wall limit (s)")
    ap.add_argument("--skip", default=None, help="report SKIP with this reason (set by meson)")
    a = ap.parse_args()
    if a.skip:
        skip(a.skip)
    name = a.name or f"e2e_{a.mode}"
    cap = a.mode == "capture"
    kmod = a.mode.startswith(("kmod", "dmabuf")) or cap
    frames = a.frames or (1000 if a.mode == "kmod-kill" else 4096)
    t_start = time.monotonic()

    # ---- what is needed, or SKIP ----
    qemu = shutil.which(os.environ.get("QEMU", "qemu-system-x86_64"))
    if not qemu:
        skip("qemu-system-x86_64 not installed (Debian: qemu-system-x86)")
    kver = pick_kver(a.kver)
    if not kver:
        skip(f"no guest kernel: /boot/vmlinuz-{a.kver or '*'} with uio_pci_generic "
             "(Debian: linux-image-amd64)")
    if not os.access(f"/boot/vmlinuz-{kver}", os.R_OK):
        skip(f"/boot/vmlinuz-{kver} is not readable (Debian installs it mode 0600: run as root)")
    busybox = os.environ.get("BUSYBOX") or shutil.which("busybox")
    if not busybox:
        skip("busybox not installed (Debian: busybox-static)")
    if kmod:
        missing = [n for n, p in (("e2e-simctl", a.simctl), ("nvidia_p2p_sim.ko", a.sim_ko),
                                  ("gpudp_pin.ko", a.pin_ko)) if not p or not os.path.exists(p)]
        if missing:
            skip(f"{', '.join(missing)} not built (kernel headers for {kver} missing, "
                 "or test/kmod does not build the modules yet)")
    app = a.mode == "gpudp-fwd"
    if cap:
        missing = [n for n, p in (("--capture-app", a.capture_app), ("--ref-app", a.ref_app),
                                  ("--pcap", a.pcap)) if not p or not os.path.exists(p)]
        if missing:
            skip(f"mode capture: {', '.join(missing)} not built or not found")
        cap_frames = [pad_frame(f) for f in read_pcap(a.pcap)]
        frames = len(cap_frames)
    if app and (not a.app or not os.path.exists(a.app)):
        skip("gpudp-fwd not built (pass --app)")
    uio = [module_file(kver, "uio"), module_file(kver, "uio_pci_generic")]
    if None in uio:
        skip(f"uio / uio_pci_generic not found for {kver}")

    work = os.path.join(a.work, name)
    os.makedirs(work, exist_ok=True)
    global PATTERN2
    pat = pattern_table()
    PATTERN2 = pat + pat

    # ---- kernel and initramfs ----
    vmlinuz = f"/boot/vmlinuz-{kver}"
    kernel = os.path.join(a.work, f"vmlinux-{kver}")
    if subprocess.run(["sh", os.path.join(a.qemu_dir, "extract-vmlinux.sh"),
                       vmlinuz, kernel]).returncode != 0:
        kernel = vmlinuz  # slower (decompression under TCG), same result
    # the guest's DPDK program: e2e-fwd, or gpudp-fwd (mode gpudp-fwd)
    exe, exe_name = ((a.app, "gpudp-fwd") if app else
                     (a.capture_app, "gpudp-capture-e2e") if cap else (a.fwd, "e2e-fwd"))
    fwd = os.path.join(work, exe_name)
    subprocess.run(["strip", "-o", fwd, exe], check=True)
    specs = [f"bin/{exe_name}={fwd}"]
    specs += [f"{d}={s}" for d, s in shared_libs(exe)]
    for m in uio:
        ko = stage_module(m, work)
        specs.append(f"lib/modules/{os.path.basename(ko)}={ko}")
    if kmod:
        specs += [f"bin/e2e-simctl={a.simctl}",
                  f"lib/modules/nvidia_p2p_sim.ko={a.sim_ko}",
                  f"lib/modules/gpudp_pin.ko={a.pin_ko}"]
    initrd = os.path.join(work, "initramfs.cpio")
    t = time.monotonic()
    env = dict(os.environ, BUSYBOX=busybox)
    r = subprocess.run(["sh", os.path.join(a.qemu_dir, "mkinitramfs.sh"), initrd, a.init] + specs,
                       env=env)
    if r.returncode != 0:
        log("FAIL: mkinitramfs.sh failed")
        return 1
    log(f"kernel {kver}, initramfs {os.path.getsize(initrd) >> 20} MiB "
        f"built in {time.monotonic() - t:.1f} s")

    # ---- sockets: ours, and the port QEMU listens on ----
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    sock.bind(("127.0.0.1", 0))
    host_port = sock.getsockname()[1]
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    probe.bind(("127.0.0.1", 0))
    qemu_port = probe.getsockname()[1]
    probe.close()

    guest_tmo = max(20, min(60, a.timeout - 60))
    corrupt = sorted({frames * (i + 1) // (a.corrupt + 1) for i in range(a.corrupt)})
    append = (f"hugepages=64 E2E_MODE={a.mode} E2E_FRAMES={frames} "
              f"E2E_TIMEOUT={guest_tmo} E2E_GPU={a.gpu_bytes} E2E_BAD={len(corrupt)} "
              # virtio's PMD reads and writes the headroom through the buffer
              # address: map GPU memory at its GPU VA for it
              f"E2E_UVA={1 if a.nic == 'virtio' else 0} E2E_REPIN={a.repin}")
    dev = ("e1000" if a.nic == "e1000" else "virtio-net-pci,disable-modern=on")
    serial = os.path.join(work, "serial.log")
    cmd = ["sh", os.path.join(a.qemu_dir, "boot.sh"), "-a", append, "-l", serial,
           "-m", "1G", "-t", str(a.timeout), kernel, initrd, "--",
           "-cpu", "max",
           "-netdev", f"socket,id=n0,udp=127.0.0.1:{host_port},localaddr=127.0.0.1:{qemu_port}",
           "-device", f"{dev},netdev=n0,mac={GUEST_MAC.hex(':')},addr={NIC_ADDR},romfile="]
    log(f"mode {a.mode}, NIC {a.nic}, {frames} frames; serial log {serial}")
    log("boot: " + " ".join(f"'{c}'" if " " in c else c for c in cmd))
    if os.path.exists(serial):
        os.remove(serial)  # a previous run's: gpudp-fwd mode watches it
    t0 = time.monotonic()
    boot = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if cap:
        return capture_finish(a, boot, sock, ("127.0.0.1", qemu_port), serial, cap_frames,
                              work, t0, t_start, (initrd, fwd))

    gen = Generator(sock, ("127.0.0.1", qemu_port),
                    1 << 30 if a.mode == "kmod-kill" else frames, a.window,
                    a.mode == "kmod-kill", corrupt,
                    # gpudp-fwd logs this once its ports are started
                    log_has(serial, r"^gpudp-fwd: \d+ pipelines, mode ") if app else None)
    why = gen.run(t0, boot, hello_timeout=a.timeout, stall_s=3 if a.mode == "kmod-kill" else 15)
    t_traffic_end = time.monotonic()
    boot_out = wait_boot(boot, a.timeout + 10)
    t_end = time.monotonic()
    # one last look: frames that arrived while QEMU shut down
    gen._receive(time.monotonic())
    sock.close()

    # ---- verdict ----
    text = open(serial, "rb").read().decode("utf-8", "replace") if os.path.exists(serial) else ""
    for line in text.splitlines():
        if line.startswith(("E2E-", "GPUDP-QEMU", "final")):
            print("  guest| " + line.rstrip())
    print(boot_out.rstrip())
    for b in gen.bad_report:
        log("bad frame back: " + b)
    counters = {}
    m = re.findall(r"^E2E-GUEST: counters (.*)$", text, re.M)
    if m:
        counters = dict(kv.split("=", 1) for kv in m[-1].split())

    def num(k):
        try:
            return int(counters.get(k, -1))
        except ValueError:
            return -1

    pins = {}
    m = re.findall(r"^E2E-GUEST: pin-stats (.*)$", text, re.M)
    if m:
        pins = dict(kv.split("=", 1) for kv in m[-1].split())

    def pin(k):
        try:
            return int(pins.get(k, -1))
        except ValueError:
            return -1

    back = len(gen.back)
    checks = [("the boot passed (guest status 0, marker, no splat)", boot.returncode == 0)]
    if app:
        js = guest_json(text, "gpudp-fwd")
        drops = js.get("drops", {})
        nbytes = sum(frame_len(i) for i in range(frames))
        checks += [
            ("EAL chose IOVA as PA and probed the e1000 with net_e1000_em",
             "Selected IOVA mode 'PA'" in text and
             re.search(r"Probe PCI driver: net_e1000_em .* device: 0000:00:05\.0", text)
             is not None),
            ("gpudp-fwd ran in cpu mode, macswap kernel, host memory",
             (js.get("mode"), js.get("work"), js.get("mem")) == ("cpu", "macswap", "host")),
            (f"the host sent {frames} frames ({nbytes} bytes)", gen.sent == frames),
            (f"gpudp-fwd received {frames} packets, {nbytes} bytes (its final counters)",
             js.get("rx_pkts") == frames and js.get("rx_bytes") == nbytes),
            (f"gpudp-fwd transmitted {frames} packets, {nbytes} bytes",
             js.get("tx_pkts") == frames and js.get("tx_bytes") == nbytes),
            ("gpudp-fwd dropped nothing (every drop counter 0)",
             bool(drops) and all(v == 0 for v in drops.values())),
            (f"{frames} frames came back, each one the frame sent with MACs swapped "
             "(payload, sequence number, length)",
             back == frames and gen.bad == 0 and gen.dup == 0 and gen.other == 0),
        ]
    elif a.mode == "kmod-kill":
        checks += [
            (f"at least {frames} frames came back before the kill", back >= frames),
            ("every frame that came back was correct", gen.bad == 0 and gen.dup == 0),
        ]
    else:
        good = frames - len(corrupt)
        checks += [
            (f"the host sent {frames} frames", gen.sent == frames),
            (f"the guest received {good} valid frames"
             + (f" and flagged the {len(corrupt)} corrupted ones" if corrupt else ""),
             num("valid") == good and num("bad") == len(corrupt)),
            (f"the guest forwarded {good} frames", num("forwarded") == good),
            ("the guest got the host's DONE after the last frame", num("done") == 1),
            (f"{good} frames came back, each one the frame sent with MACs swapped"
             + (", none of the corrupted ones" if corrupt else ""),
             back == good and gen.bad == 0 and gen.dup == 0
             and not (gen.back & set(corrupt))),
        ]
        checks += [(f"the DMA address of all {frames} frames was the expected one",
                    num("addr_checked") == frames and num("addr_bad") == 0)]
        if kmod:
            checks += [(f"2 words of each of the {frames} frames read through the provider "
                        "at the GPU VA equal what the CPU mapping shows",
                        num("peek_checked") == 2 * frames and num("peek_bad") == 0)]
    if kmod:
        at = (f"the first {pin('forwarded')} frames (>= {frames}, before the kill)"
              if a.mode == "kmod-kill" else f"the {frames} frames")
        want = a.repin
        checks += [
            ("lib/mem pinned the pool through its registration cache when it was created "
             f"(pins={pin('pins_created')} hits={pin('hits_created')} "
             f"bytes_pinned={pin('bytes_pinned_created')})", pin("pins_created") >= 1),
            (f"lib/mem pinned {'nothing' if want == 0 else f'exactly the {want} injected times'}"
             f" while forwarding {at} (pins={pin('pins_after')} hits={pin('hits_after')} "
             f"bytes_pinned={pin('bytes_pinned_after')} afterwards)",
             pin("pins_during") == want and pin("repins_injected") == want and
             pin("forwarded") >= frames and
             (want > 0 or pin("bytes_pinned_after") == pin("bytes_pinned_created"))),
        ]
    if a.mode.startswith("dmabuf"):
        m = re.search(r"pin backend (\w+), CPU mapping", text)
        checks += [("lib/mem pinned through the dmabuf backend (the simulator's dma-buf "
                    f"export attached by gpudp_pin for the NIC): backend "
                    f"{m.group(1) if m else None}", m is not None and m.group(1) == "dmabuf")]
    ok = all(c for _, c in checks)
    for what, c in checks:
        log(f"{'ok  ' if c else 'FAIL'} {what}")

    boot_s = (gen.hello_at - t0) if gen.hello_at else float("nan")
    traffic_s = ((gen.last_back_at or t_traffic_end) - gen.first_sent_at) if gen.first_sent_at else 0
    if app:
        log(f"figures: sent={gen.sent} back_ok={back} back_bad={gen.bad} dup={gen.dup} "
            f"unrecognised={gen.other} app_rx={js.get('rx_pkts')} app_tx={js.get('tx_pkts')} "
            f"app_rx_bytes={js.get('rx_bytes')} app_tx_bytes={js.get('tx_bytes')} "
            f"app_drops={sum(drops.values()) if drops else None}")
    else:
        log(f"figures: sent={gen.sent} corrupted={len(corrupt)} guest_bad={num('bad')} "
            f"guest_valid={num('valid')} guest_forwarded={num('forwarded')} "
            f"back_ok={back} back_bad={gen.bad} dup={gen.dup} hellos={gen.hellos} "
            f"unrecognised={gen.other} peek_checked={num('peek_checked')} "
            f"addr_checked={num('addr_checked')}"
            + (f" pins_created={pin('pins_created')} pins_during={pin('pins_during')}"
               f" hits={pin('hits_after')} bytes_pinned={pin('bytes_pinned_after')}"
               if kmod else ""))
    if ok and not os.environ.get("E2E_KEEP"):
        for f in (initrd, fwd):  # large; kept when the test fails
            os.remove(f)
    log(f"times: QEMU start to {'first frame back' if app else 'HELLO'} {boot_s:.1f} s, traffic {traffic_s:.2f} s "
        f"({back / traffic_s if traffic_s > 0 else 0:.0f} frames/s), "
        f"QEMU total {t_end - t0:.1f} s, test total {t_end - t_start:.1f} s; "
        f"generator stopped: {why}")
    print(f"{sum(1 for _, c in checks if c)} passed, {sum(1 for _, c in checks if not c)} failed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
