/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest helper: end the QEMU run with an exit status the host can read,
 * (CODE << 1) | 1, so guest 0 becomes host 1. Build with gcc -static.
 *   x86: writes CODE to the isa-debug-exit port (0xf4), and QEMU exits
 *        with that status.
 *   arm64: Arm semihosting's SYS_EXIT (QEMU with -semihosting-config
 *        enable=on,userspace=on), which exits QEMU with the status given.
 */
#include <stdio.h>
#include <stdlib.h>
#if defined(__x86_64__) || defined(__i386__)
#include <sys/io.h>

static void qexit(int code)
{
	if (ioperm(0xf4, 1, 1) == 0)
		outb((unsigned char)code, 0xf4);
	perror("qexit: no isa-debug-exit device");
}
#elif defined(__aarch64__)
static void qexit(int code)
{
	/* ADP_Stopped_ApplicationExit, then the exit status */
	unsigned long block[2] = { 0x20026, ((unsigned long)code << 1) | 1 };
	register unsigned long op __asm__("x0") = 0x18;	/* SYS_EXIT */
	register unsigned long arg __asm__("x1") = (unsigned long)block;

	__asm__ volatile("hlt #0xf000" : "+r"(op) : "r"(arg) : "memory");
	fprintf(stderr, "qexit: semihosting did not exit\n");
}
#else
#error "qexit: no way to leave QEMU known for this architecture"
#endif

int main(int argc, char **argv)
{
	qexit(argc > 1 ? atoi(argv[1]) : 0);
	return 1;
}
