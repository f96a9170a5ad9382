/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * gpudp-capture as a library: the whole app behind one call, so that a
 * test build (test/e2e's gpudp-capture-e2e, with a test-only gpudev driver
 * linked in) runs the same code as the installed binary.
 */
#ifndef GPUDP_CAPTURE_H
#define GPUDP_CAPTURE_H

/**
 * Run gpudp-capture: `[EAL options] -- [options]` as doc/capture-options.md
 * describes. Starts and cleans up EAL; call it once per process.
 * @return the exit code (enum gpudp_app_exit)
 */
int gpudp_capture_main(int argc, char **argv);

#endif /* GPUDP_CAPTURE_H */
