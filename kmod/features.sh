#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# usage: features.sh OUT.h CC [KERNEL CFLAGS...]
#
# Kernel feature checks for gpudp_pin and the test provider, run by their
# Kbuild files before the first object is compiled: each check is a small
# C snippet compiled with the target kernel's own compiler and flags (the
# Kbuild recipe passes them); the result is OUT.h, one #define per feature
# found. The code tests these macros, never a kernel version.
#
# The last checks find which NV-P2P API the nv-p2p.h in use declares
# (gpudp_nv_p2p.h: NVIDIA's header from NVIDIA_SRC, or gpudp's own): the
# desktop form, with tokens, or the Tegra form of NVIDIA's GPUDirect RDMA
# guide, section Porting to Tegra. Exactly one must compile; the module and
# the test provider are written for both and test GPUDP_NV_P2P_TEGRA.
#
# A snippet compiles without a warning (-Werror) where the feature is
# there. A reference snippet that must always compile guards the others:
# if it fails, the compiler or the flags are wrong, and the script fails
# (with the compiler's words) instead of reporting every feature absent.
set -eu
out=$1
cc=$2
shift 2
# The kernel's flags are plain words (no spaces inside one): kept as a
# string, split again at each compile.
# gpudp_nv_p2p.h and its siblings are next to this script.
here=$(cd "$(dirname "$0")" && pwd)
flags="$* -I$here"
# The nv-p2p.h files the include path can reach (NVIDIA_SRC's).
nvh=
for w in $flags; do
	case $w in
	-I*) [ ! -f "${w#-I}/nv-p2p.h" ] || nvh="$nvh ${w#-I}/nv-p2p.h" ;;
	esac
done
# Kbuild runs this at every build: the header is kept (and nothing
# recompiled) while the kernel, the compiler, its flags, the NV-P2P
# headers and this script are the same; a build tree reused for another
# kernel or nv-p2p.h gets new results.
# shellcheck disable=SC2086 # $nvh is a word list
sig=$( (echo "${KERNELRELEASE:-} $cc $flags"; cat "$0" "$here"/gpudp_nv_p2p*.h $nvh) |
	cksum | cut -d' ' -f1)
if [ -f "$out" ] && grep -qx "/\* signature $sig \*/" "$out"; then
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpudp-features.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# check NAME 'includes' 'body': compile a function holding BODY after
# INCLUDES, in the background; leaves NAME.ok when it compiled.
check() {
	{
		printf '%s\n' "$2"
		printf 'int gpudp_conftest(void *p);\n'
		printf 'int gpudp_conftest(void *p)\n{\n%s\n\treturn 0;\n}\n' "$3"
	} >"$tmp/$1.c"
	(
		# shellcheck disable=SC2086 # $cc and $flags are word lists
		if $cc $flags -Werror -DKBUILD_MODNAME='"gpudp_conftest"' \
			-DKBUILD_BASENAME='"gpudp_conftest"' -c -o "$tmp/$1.o" \
			"$tmp/$1.c" >"$tmp/$1.log" 2>&1; then
			: >"$tmp/$1.ok"
		fi
	) &
}

check reference '#include <linux/module.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/dma-buf.h>
MODULE_LICENSE("GPL");' '	(void)p;'

# vm_flags_set(): writes to vma->vm_flags go through it (6.3 on).
check GPUDP_HAVE_VM_FLAGS_SET '#include <linux/mm.h>' \
'	vm_flags_set(p, VM_IO);'

# MODULE_IMPORT_NS() takes the namespace as a bare word (before 6.13) or as
# a string literal (6.13 on); a bare word does not compile in the latter.
check GPUDP_IMPORT_NS_BARE '#include <linux/module.h>
MODULE_IMPORT_NS(DMA_BUF);' '	(void)p;'

# no_llseek() (gone in 6.12, where a NULL .llseek means the same).
check GPUDP_HAVE_NO_LLSEEK '#include <linux/fs.h>' \
'	static const struct file_operations fops = { .llseek = no_llseek };

	return !fops.llseek;'

# The importer's revocation callback: dma_buf_attach_ops.move_notify, called
# by dma_buf_move_notify(), became .invalidate_mappings and
# dma_buf_invalidate_mappings() (7.x).
check GPUDP_HAVE_DMABUF_INVALIDATE_MAPPINGS '#include <linux/dma-buf.h>' \
'	static const struct dma_buf_attach_ops ops = { .invalidate_mappings = NULL };

	dma_buf_invalidate_mappings(p);
	return !ops.invalidate_mappings;'
check GPUDP_HAVE_DMABUF_MOVE_NOTIFY '#include <linux/dma-buf.h>' \
'	static const struct dma_buf_attach_ops ops = { .move_notify = NULL };

	dma_buf_move_notify(p);
	return !ops.move_notify;'

# get_file_active(): a reference on a file that may be on its way out
# (6.7 on, where get_file_rcu() takes a __rcu pointer to the pointer).
check GPUDP_HAVE_GET_FILE_ACTIVE '#include <linux/fs.h>
#include <linux/file.h>' \
'	struct file *f = p;

	return get_file_active(&f) != NULL;'

# The NV-P2P API of the nv-p2p.h in use: the Tegra form (guide, section
# Porting to Tegra) or the desktop one.
check GPUDP_NV_P2P_TEGRA '#include <linux/dma-direction.h>
#include "gpudp_nv_p2p.h"' \
'	struct nvidia_p2p_page_table *pt = NULL;
	struct nvidia_p2p_dma_mapping *m = NULL;

	return nvidia_p2p_get_pages(0, 0, &pt, NULL, NULL) +
	       nvidia_p2p_put_pages(pt) +
	       nvidia_p2p_dma_map_pages(p, pt, &m, DMA_BIDIRECTIONAL) +
	       nvidia_p2p_dma_unmap_pages(m);'
check GPUDP_NV_P2P_DESKTOP '#include "gpudp_nv_p2p.h"' \
'	struct nvidia_p2p_page_table *pt = NULL;
	struct nvidia_p2p_dma_mapping *m = NULL;

	return nvidia_p2p_get_pages(0, 0, 0, 0, &pt, NULL, NULL) +
	       nvidia_p2p_put_pages(0, 0, 0, pt) +
	       nvidia_p2p_dma_map_pages(p, pt, &m) +
	       nvidia_p2p_dma_unmap_pages(p, pt, m);'

wait
if [ ! -e "$tmp/reference.ok" ]; then
	echo "features.sh: the reference snippet does not compile with this kernel's compiler and flags:" >&2
	cat "$tmp/reference.log" >&2
	exit 1
fi
napi=0
for n in GPUDP_NV_P2P_TEGRA GPUDP_NV_P2P_DESKTOP; do
	[ ! -e "$tmp/$n.ok" ] || napi=$((napi + 1))
done
if [ "$napi" != 1 ]; then
	echo "features.sh: the nv-p2p.h in use declares $napi of the two NV-P2P APIs (desktop, Tegra), not one:" >&2
	cat "$tmp/GPUDP_NV_P2P_TEGRA.log" "$tmp/GPUDP_NV_P2P_DESKTOP.log" >&2
	exit 1
fi
{
	echo "/* Generated by kmod/features.sh for this kernel: do not edit. */"
	echo "#ifndef GPUDP_FEATURES_H"
	echo "#define GPUDP_FEATURES_H"
	echo "/* signature $sig */"
	for c in "$tmp"/GPUDP_*.c; do
		n=$(basename "$c" .c)
		if [ -e "$tmp/$n.ok" ]; then
			echo "#define $n 1"
		else
			echo "/* #undef $n */"
		fi
	done
	echo "#endif"
} >"$out.tmp"
mv "$out.tmp" "$out"
