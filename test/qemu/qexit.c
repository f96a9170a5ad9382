/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest helper: end the QEMU run with an exit status the host can read.
 * Writes CODE to the isa-debug-exit port (0xf4); QEMU then exits with
 * (CODE << 1) | 1, so guest 0 becomes host 1. Build with gcc -static.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/io.h>

int main(int argc, char **argv)
{
	int code = argc > 1 ? atoi(argv[1]) : 0;

	if (ioperm(0xf4, 1, 1) == 0)
		outb((unsigned char)code, 0xf4);
	perror("qexit: no isa-debug-exit device");
	return 1;
}
