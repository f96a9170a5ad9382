# SPDX-License-Identifier: BSD-3-Clause
# The build of an example work from an installed gpudp SDK, shared by the
# examples here: each example's Makefile sets WORK (the name of its files:
# WORK.h, WORK.c, WORK.cu) and includes this file. The SDK is found with
# pkg-config alone: set PKG_CONFIG_PATH to the folder holding gpudp.pc (and
# libdpdk.pc, which it requires).
#
#   make                      with nvcc: the CPU form and the GPU image;
#                             without: the CPU form only (--mode cpu)
#   make NVCC=                the CPU form only, even with nvcc
#   make GPU_ARCHS="80 90 100" SASS for each, PTX of the last
#
# The shared object links no gpudp library: everything it uses from the SDK
# is inline in the headers (-Wl,-z,defs checks that nothing else is left
# undefined). WORK.c embeds the GPU image when built with -DWORK_GPU_IMAGE.

PKG_CONFIG ?= pkg-config
# nvcc: from PATH, else $(CUDA_HOME)/bin/nvcc; empty: none
ifeq ($(origin NVCC),undefined)
NVCC := $(shell command -v nvcc 2>/dev/null)
ifeq ($(NVCC),)
ifneq ($(CUDA_HOME),)
NVCC := $(wildcard $(CUDA_HOME)/bin/nvcc)
endif
endif
endif
# SASS for each of these architectures, and PTX of the last (run by newer GPUs)
GPU_ARCHS ?= 80 90

ifeq ($(filter clean,$(MAKECMDGOALS)),)
ifneq ($(shell $(PKG_CONFIG) --exists gpudp && echo yes),yes)
$(error pkg-config finds no usable gpudp.pc (or the libdpdk.pc it requires): \
	set PKG_CONFIG_PATH to the SDK's pkgconfig folder)
endif
endif
GPUDP_CFLAGS := $(shell $(PKG_CONFIG) --cflags gpudp 2>/dev/null)
# nvcc takes only the include paths: a DPDK's own flags (-march, -include)
# are for the C compiler
GPUDP_NVCC_INC := $(shell $(PKG_CONFIG) --cflags-only-I gpudp 2>/dev/null)

CFLAGS ?= -O2 -g
WORK_CFLAGS = -std=c11 -Wall -Wextra -Werror -fPIC -fvisibility=hidden $(GPUDP_CFLAGS)
WORK_LDFLAGS = -shared -Wl,-z,defs
NVCC_FLAGS = -fatbin -O3 -std=c++17 -Werror all-warnings \
	$(foreach a,$(GPU_ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) \
	-gencode arch=compute_$(lastword $(GPU_ARCHS)),code=compute_$(lastword $(GPU_ARCHS))

ifeq ($(WORK),)
$(error set WORK, the example's name, before including work.mk)
endif

.PHONY: all clean

all: $(WORK).so

ifneq ($(NVCC),)
$(WORK).fatbin: $(WORK).cu $(WORK).h
	$(NVCC) $(NVCC_FLAGS) $(GPUDP_NVCC_INC) -o $@ $(WORK).cu

# -Wa,-I.: GPUDP_WORK_IMAGE's .incbin finds the fatbin here
$(WORK).so: $(WORK).c $(WORK).h $(WORK).fatbin
	$(CC) $(CFLAGS) $(WORK_CFLAGS) -DWORK_GPU_IMAGE -Wa,-I. $(LDFLAGS) $(WORK_LDFLAGS) \
		-o $@ $(WORK).c
	@echo "$(WORK).so: CPU form and GPU image" \
		"(SASS for sm $(GPU_ARCHS), PTX compute_$(lastword $(GPU_ARCHS)))"
else
$(WORK).so: $(WORK).c $(WORK).h
	@echo "$(WORK): no nvcc (in PATH or \$$CUDA_HOME/bin; or NVCC=...):" \
		"building the CPU form only (--mode cpu)"
	$(CC) $(CFLAGS) $(WORK_CFLAGS) $(LDFLAGS) $(WORK_LDFLAGS) -o $@ $(WORK).c
endif

clean:
	rm -f $(WORK).so $(WORK).fatbin
