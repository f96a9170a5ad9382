/* SPDX-License-Identifier: BSD-3-Clause */
/* The gpudp-capture binary: the app is the library gpudp_capture_app. */
#include "gpudp_capture.h"

int
main(int argc, char **argv)
{
	return gpudp_capture_main(argc, argv);
}
