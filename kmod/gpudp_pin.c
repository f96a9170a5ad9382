// SPDX-License-Identifier: GPL-2.0
/*
 * gpudp_pin: pin GPU memory with NVIDIA's NV-P2P kernel API and hand it to
 * user space as a page table, as bus addresses for a peer PCI device and as
 * a write-combined CPU mapping.
 *
 * The NV-P2P rules followed here come from NVIDIA's GPUDirect RDMA guide
 * (shared/seeds, "the guide" below); comments name its sections.
 *
 * Objects
 *   struct gpudp_file: one per open file, owns a list of pins.
 *   struct gpudp_pin: one pinned GPU VA range. Reference counted: the file's
 *   list, every VMA mapping it and every ioctl in flight hold a reference.
 *   The provider's pages are released when the pin is unpinned or its file
 *   closed (gpudp_pin_teardown()), the struct itself when the last
 *   reference goes.
 *
 * Pin states (gpudp_pin.state, under gpudp_pin.lock)
 *   NEW -> VALID          get_pages succeeded and the table checked out
 *   VALID -> REVOKED      the free callback ran (memory freed under us)
 *   VALID -> UNPINNING    unpin/close is releasing the pages
 *   UNPINNING -> REVOKED  the free callback raced with the release
 *   * -> RELEASED         teardown finished; no callback can come any more
 *
 * Global lock order (outermost first):
 *
 *   mmap_lock                  taken by the mm core around ->mmap, ->fault
 *     gpudp_file.lock          mutex: pin list, pinned_bytes
 *     gpudp_pin.lock           mutex: state, page table, DMA mapping
 *       i_mmap_rwsem           inside unmap_mapping_range()
 *
 *   gpudp_file.lock and gpudp_pin.lock are never held together.
 *   1. No copy_to_user()/copy_from_user() with either mutex held: a fault
 *      takes mmap_lock, which ranks above both (ABBA with ->mmap/->fault).
 *   2. The free callback takes gpudp_pin.lock and nothing else of ours; it
 *      never takes gpudp_file.lock (the provider calls it with its own locks
 *      held: guide, "Unpin Callback", last paragraph).
 *   3. nvidia_p2p_put_pages{,_persistent}() is called with no lock held:
 *      it may wait for a free callback of the same table that is in flight,
 *      and that callback waits for gpudp_pin.lock (guide, "Changes in CUDA
 *      12.2").
 *   4. nvidia_p2p_get_pages() is called with gpudp_pin.lock held, so that a
 *      callback firing right after registration waits until the pin is set
 *      up. nvidia_p2p_dma_map_pages()/dma_unmap_pages() are called with
 *      gpudp_pin.lock held, so that the callback cannot free the table under
 *      them. This assumes the provider does not run a free callback while
 *      holding a lock those three functions need (true of the simulator;
 *      for real drivers, prefer persistent pins for peer mappings: they have
 *      no callback).
 *
 * Provider contract assumed (the simulator implements it): the free
 * callback is never invoked for a table whose get_pages call failed, and
 * once nvidia_p2p_put_pages() has returned, the callback of that table has
 * either returned or will never be invoked.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/capability.h>
#include <linux/completion.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "gpudp_nv_p2p.h"
#include "include/uapi/gpudp_pin.h"

#define GPUDP_GPU_PAGE_MASK	(GPUDP_PIN_GPU_PAGE_SIZE - 1)
/* Highest mmap offset handed out; keeps offset + length below 2^63. */
#define GPUDP_MMAP_OFF_LIMIT	BIT_ULL(62)

static unsigned long long max_pinned_bytes = 16ULL << 30;
module_param(max_pinned_bytes, ullong, 0644);
MODULE_PARM_DESC(max_pinned_bytes,
		 "Most bytes one open file may have pinned at a time (default 16 GiB)");

enum gpudp_pin_state {
	GPUDP_NEW,
	GPUDP_VALID,
	GPUDP_UNPINNING,
	GPUDP_REVOKED,
	GPUDP_RELEASED,
};

struct gpudp_file {
	struct mutex lock;		/* protects pins, pinned_bytes */
	struct list_head pins;
	u64 pinned_bytes;
};

struct gpudp_pin {
	struct kref ref;
	struct list_head node;		/* gpudp_file.pins, under its lock */
	struct mutex lock;		/* protects the fields below it */
	enum gpudp_pin_state state;
	struct nvidia_p2p_page_table *pt;	/* VALID, UNPINNING */
	struct nvidia_p2p_dma_mapping *dma;	/* VALID only */
	struct pci_dev *peer;			/* with dma */
	bool cb_ran;			/* free callback entered its section */
	struct completion cb_done;	/* free callback returned */

	/* Immutable once the pin is on its file's list. */
	u64 handle;
	u64 va;				/* 64 KiB aligned */
	u64 len;			/* 64 KiB multiple */
	u64 mmap_off;
	u32 flags;			/* GPUDP_PIN_F_* */
	u32 page_size;			/* bytes */
	u32 entries;
	struct address_space *mapping;	/* of the file that made the pin */
};

static atomic64_t gpudp_next_handle = ATOMIC64_INIT(0);
static atomic64_t gpudp_next_mmap_off = ATOMIC64_INIT(GPUDP_PIN_GPU_PAGE_SIZE);

/* Last reference gone: teardown ran (or the pages were never got). */
static void gpudp_pin_free(struct kref *ref)
{
	kfree(container_of(ref, struct gpudp_pin, ref));
}

static void gpudp_pin_put(struct gpudp_pin *pin)
{
	kref_put(&pin->ref, gpudp_pin_free);
}

static u32 gpudp_page_bytes(u32 page_size_type)
{
	switch (page_size_type) {
	case NVIDIA_P2P_PAGE_SIZE_4KB:
		return 4096;
	case NVIDIA_P2P_PAGE_SIZE_64KB:
		return 64 * 1024;
	case NVIDIA_P2P_PAGE_SIZE_128KB:
		return 128 * 1024;
	default:
		return 0;
	}
}

/*
 * Remove every user mapping of @pin; later accesses fault and get SIGBUS
 * from gpudp_vm_fault(). Caller holds pin->lock.
 */
static void gpudp_pin_zap(struct gpudp_pin *pin)
{
	lockdep_assert_held(&pin->lock);
	unmap_mapping_range(pin->mapping, pin->mmap_off, pin->len, 1);
}

/*
 * Free callback (guide, "Handling the free callback", "Unpin Callback").
 * Runs whenever the provider revokes the pages, possibly while an unpin,
 * a close, an mmap, a fault or another ioctl on the same pin is in
 * flight. Takes pin->lock only (rule 2). Frees the provider's objects with
 * nvidia_p2p_free_dma_mapping() and nvidia_p2p_free_page_table(), never
 * with put_pages. The pin memory stays valid until cb_done is completed:
 * gpudp_pin_teardown() waits for it.
 */
static void gpudp_pin_free_cb(void *data)
{
	struct gpudp_pin *pin = data;

	mutex_lock(&pin->lock);
	if (pin->state == GPUDP_VALID || pin->state == GPUDP_UNPINNING) {
		gpudp_pin_zap(pin);
		if (pin->dma) {
			nvidia_p2p_free_dma_mapping(pin->dma);
			pin->dma = NULL;
			pci_dev_put(pin->peer);
			pin->peer = NULL;
		}
		nvidia_p2p_free_page_table(pin->pt);
		pin->pt = NULL;
		pin->state = GPUDP_REVOKED;
	}
	pin->cb_ran = true;
	mutex_unlock(&pin->lock);
	complete(&pin->cb_done);
}

/* Give the pages back to the provider. Called with no lock held (rule 3). */
static int gpudp_put_pages(struct gpudp_pin *pin,
			   struct nvidia_p2p_page_table *pt)
{
#ifdef NVIDIA_P2P_CAP_GET_PAGES_PERSISTENT_API
	if (pin->flags & GPUDP_PIN_F_PERSISTENT)
		return nvidia_p2p_put_pages_persistent(pin->va, pt, 0);
#endif
	/* Guide, "Unpinning GPU memory": tokens are zero since CUDA 6.0. */
	return nvidia_p2p_put_pages(0, 0, pin->va, pt);
}

/*
 * Release the provider's pages of @pin (unpin or close). The pin is off its
 * file's list already, so no new lookup finds it. Takes pin->lock itself;
 * no lock may be held by the caller (rule 3). On return no free callback
 * for this pin is running or can run any more.
 */
static void gpudp_pin_teardown(struct gpudp_pin *pin)
{
	struct nvidia_p2p_page_table *pt = NULL;
	bool cb_ran;
	int ret;

	mutex_lock(&pin->lock);
	gpudp_pin_zap(pin);
	if (pin->state == GPUDP_VALID) {
		if (pin->dma) {
			/* Not from the callback (guide, "Kernel API"). */
			nvidia_p2p_dma_unmap_pages(pin->peer, pin->pt, pin->dma);
			pin->dma = NULL;
			pci_dev_put(pin->peer);
			pin->peer = NULL;
		}
		pin->state = GPUDP_UNPINNING;
		pt = pin->pt;
	}
	mutex_unlock(&pin->lock);

	if (pt) {
		ret = gpudp_put_pages(pin, pt);
		if (ret)
			pr_err_ratelimited("put_pages va 0x%llx len 0x%llx: %d\n",
			       pin->va, pin->len, ret);
	}

	mutex_lock(&pin->lock);
	cb_ran = pin->cb_ran;
	pin->pt = NULL;
	pin->state = GPUDP_RELEASED;
	mutex_unlock(&pin->lock);

	/* The callback may still be between its unlock and complete(). */
	if (cb_ran)
		wait_for_completion(&pin->cb_done);
}

/* Find the pin @handle of @gf and take a reference. Takes gf->lock. */
static struct gpudp_pin *gpudp_pin_get(struct gpudp_file *gf, u64 handle)
{
	struct gpudp_pin *pin;

	mutex_lock(&gf->lock);
	list_for_each_entry(pin, &gf->pins, node) {
		if (pin->handle == handle) {
			kref_get(&pin->ref);
			mutex_unlock(&gf->lock);
			return pin;
		}
	}
	mutex_unlock(&gf->lock);
	return NULL;
}

/* Errno for an operation on a pin that is not VALID. Caller holds pin->lock. */
static int gpudp_pin_state_err(struct gpudp_pin *pin)
{
	lockdep_assert_held(&pin->lock);
	return pin->state == GPUDP_REVOKED ? -EIDRM : -ENOENT;
}

static bool gpudp_privileged(void)
{
	return capable(CAP_SYS_ADMIN) || capable(CAP_SYS_RAWIO);
}

/*
 * Check the table that get_pages returned (guide, "Kernel API": version
 * first, then the other fields). Caller holds pin->lock.
 */
static int gpudp_pin_check_table(struct gpudp_pin *pin)
{
	struct nvidia_p2p_page_table *pt = pin->pt;
	u32 bytes;
	u32 i;

	if (!NVIDIA_P2P_PAGE_TABLE_VERSION_COMPATIBLE(pt)) {
		pr_err_ratelimited("page table version 0x%x not compatible with 0x%x\n",
		       pt->version, NVIDIA_P2P_PAGE_TABLE_VERSION);
		return -EPROTO;
	}
	bytes = gpudp_page_bytes(pt->page_size);
	if (!bytes || !pt->entries || !pt->pages ||
	    (u64)pt->entries * bytes < pin->len ||
	    (u64)(pt->entries - 1) * bytes >= pin->len) {
		pr_err_ratelimited("bad page table: page_size %u entries %u for len 0x%llx\n",
		       pt->page_size, pt->entries, pin->len);
		return -EPROTO;
	}
	for (i = 0; i < pt->entries; i++)
		if (!pt->pages[i])
			return -EPROTO;
	pin->page_size = bytes;
	pin->entries = pt->entries;
	return 0;
}

static int gpudp_unpin_handle(struct gpudp_file *gf, u64 handle);

/* Version and budget. Takes gf->lock. */
static int gpudp_ioc_version(struct gpudp_file *gf, void __user *uarg)
{
	struct gpudp_pin_version v = {
		.abi_major = GPUDP_PIN_ABI_MAJOR,
		.abi_minor = GPUDP_PIN_ABI_MINOR,
		.max_pinned_bytes = READ_ONCE(max_pinned_bytes),
	};

#ifdef NVIDIA_P2P_CAP_GET_PAGES_PERSISTENT_API
	v.caps |= GPUDP_PIN_CAP_PERSISTENT;
#endif
#ifdef GPUDP_HAVE_NV_P2P_H
	v.caps |= GPUDP_PIN_CAP_NV_P2P_H;
#endif
	mutex_lock(&gf->lock);
	v.pinned_bytes = gf->pinned_bytes;
	mutex_unlock(&gf->lock);

	return copy_to_user(uarg, &v, sizeof(v)) ? -EFAULT : 0;
}

/* Pin: guide, "Pinning GPU memory". Takes gf->lock, then pin->lock. */
static int gpudp_ioc_pin(struct gpudp_file *gf, struct file *filp,
			 void __user *uarg)
{
	struct gpudp_pin_pin a;
	struct gpudp_pin *pin;
	u64 start, end, len, cap;
	int ret;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	if (a.flags & ~GPUDP_PIN_F_ALL || a.pad)
		return -EINVAL;
	if (!a.len)
		return -EINVAL;
	if ((a.flags & GPUDP_PIN_F_STRICT) &&
	    ((a.va | a.len) & GPUDP_GPU_PAGE_MASK))
		return -EINVAL;
#ifndef NVIDIA_P2P_CAP_GET_PAGES_PERSISTENT_API
	if (a.flags & GPUDP_PIN_F_PERSISTENT)
		return -EOPNOTSUPP;
#endif
	/* Round to 64 KiB, as the guide's kmd_pin_memory() does. */
	if (a.va + a.len < a.va ||
	    a.va + a.len > U64_MAX - GPUDP_GPU_PAGE_MASK)
		return -EOVERFLOW;
	start = a.va & ~GPUDP_GPU_PAGE_MASK;
	end = (a.va + a.len + GPUDP_GPU_PAGE_MASK) & ~GPUDP_GPU_PAGE_MASK;
	len = end - start;
	cap = READ_ONCE(max_pinned_bytes);
	if (len > cap)
		return -E2BIG;

	pin = kzalloc(sizeof(*pin), GFP_KERNEL);
	if (!pin)
		return -ENOMEM;
	kref_init(&pin->ref);
	INIT_LIST_HEAD(&pin->node);
	mutex_init(&pin->lock);
	init_completion(&pin->cb_done);
	pin->state = GPUDP_NEW;
	pin->va = start;
	pin->len = len;
	pin->flags = a.flags;
	pin->mapping = filp->f_mapping;

	/* Reserve the bytes first so that concurrent pins cannot overshoot. */
	mutex_lock(&gf->lock);
	if (gf->pinned_bytes + len > cap) {
		mutex_unlock(&gf->lock);
		kfree(pin);
		return -ENOSPC;
	}
	gf->pinned_bytes += len;
	mutex_unlock(&gf->lock);

	pin->mmap_off = atomic64_fetch_add(len, &gpudp_next_mmap_off);
	if (pin->mmap_off + len > GPUDP_MMAP_OFF_LIMIT) {
		ret = -ENOSPC;
		goto err_unreserve;
	}

	mutex_lock(&pin->lock);		/* rule 4 */
#ifdef NVIDIA_P2P_CAP_GET_PAGES_PERSISTENT_API
	if (a.flags & GPUDP_PIN_F_PERSISTENT)
		ret = nvidia_p2p_get_pages_persistent(start, len, &pin->pt, 0);
	else
#endif
		ret = nvidia_p2p_get_pages(0, 0, start, len, &pin->pt,
					   gpudp_pin_free_cb, pin);
	if (ret) {
		mutex_unlock(&pin->lock);
		pr_debug("get_pages va 0x%llx len 0x%llx: %d\n", start, len, ret);
		goto err_unreserve;
	}
	pin->state = GPUDP_VALID;
	ret = gpudp_pin_check_table(pin);
	mutex_unlock(&pin->lock);
	if (ret) {
		gpudp_pin_teardown(pin);
		goto err_unreserve;
	}

	pin->handle = atomic64_inc_return(&gpudp_next_handle);
	mutex_lock(&gf->lock);
	list_add_tail(&pin->node, &gf->pins);
	mutex_unlock(&gf->lock);

	a.handle = pin->handle;
	a.aligned_va = start;
	a.aligned_len = len;
	a.offset = a.va - start;
	a.mmap_offset = pin->mmap_off;
	if (copy_to_user(uarg, &a, sizeof(a))) {
		/* Nobody learnt the handle: undo (-ENOENT if already gone). */
		gpudp_unpin_handle(gf, a.handle);
		return -EFAULT;
	}
	return 0;

err_unreserve:
	mutex_lock(&gf->lock);
	gf->pinned_bytes -= len;
	mutex_unlock(&gf->lock);
	gpudp_pin_put(pin);
	return ret;
}

/* Unpin: guide, "Unpinning GPU memory". Takes gf->lock, then pin->lock. */
static int gpudp_unpin_handle(struct gpudp_file *gf, u64 handle)
{
	struct gpudp_pin *pin, *found = NULL;

	mutex_lock(&gf->lock);
	list_for_each_entry(pin, &gf->pins, node) {
		if (pin->handle == handle) {
			found = pin;
			list_del_init(&pin->node);
			gf->pinned_bytes -= pin->len;
			break;
		}
	}
	mutex_unlock(&gf->lock);
	if (!found)
		return -ENOENT;

	gpudp_pin_teardown(found);
	gpudp_pin_put(found);
	return 0;
}

/* Takes gf->lock, then pin->lock (not nested). */
static int gpudp_ioc_unpin(struct gpudp_file *gf, void __user *uarg)
{
	struct gpudp_pin_handle h;

	if (copy_from_user(&h, uarg, sizeof(h)))
		return -EFAULT;
	return gpudp_unpin_handle(gf, h.handle);
}

/*
 * Copy @n addresses, @addr(i) read under pin->lock, to user space without
 * holding it (rule 1). Caller holds a reference on @pin; takes pin->lock.
 * @from_dma selects the peer DMA mapping instead of the page table.
 */
static int gpudp_copy_addrs(struct gpudp_pin *pin, bool from_dma,
			    u64 __user *uaddrs, u32 n)
{
	u64 *buf;
	u32 i;
	int ret = 0;

	buf = kvmalloc_array(n, sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;

	mutex_lock(&pin->lock);
	if (pin->state != GPUDP_VALID || (from_dma && !pin->dma)) {
		ret = gpudp_pin_state_err(pin);
	} else {
		for (i = 0; i < n; i++)
			buf[i] = from_dma ? pin->dma->dma_addresses[i] :
				 pin->pt->pages[i]->physical_address;
	}
	mutex_unlock(&pin->lock);

	if (!ret && copy_to_user(uaddrs, buf, (size_t)n * sizeof(*buf)))
		ret = -EFAULT;
	kvfree(buf);
	return ret;
}

/* Page table. Takes gf->lock, then pin->lock (not nested). */
static int gpudp_ioc_get_table(struct gpudp_file *gf, void __user *uarg)
{
	struct gpudp_pin_table t;
	struct gpudp_pin *pin;
	int ret = 0;

	if (copy_from_user(&t, uarg, sizeof(t)))
		return -EFAULT;
	if (t.pad)
		return -EINVAL;
	/* Addresses are for privileged callers only, like /proc/pid/pagemap. */
	if (t.addrs && !gpudp_privileged())
		return -EPERM;
	pin = gpudp_pin_get(gf, t.handle);
	if (!pin)
		return -ENOENT;

	mutex_lock(&pin->lock);
	if (pin->state != GPUDP_VALID)
		ret = gpudp_pin_state_err(pin);
	mutex_unlock(&pin->lock);
	if (ret)
		goto out;

	t.entries = pin->entries;
	t.page_size = pin->page_size;
	if (t.addrs) {
		if (t.max_entries < pin->entries)
			ret = -ERANGE;
		else
			ret = gpudp_copy_addrs(pin, false,
					       u64_to_user_ptr(t.addrs),
					       pin->entries);
	}
	if ((!ret || ret == -ERANGE) && copy_to_user(uarg, &t, sizeof(t)))
		ret = -EFAULT;
out:
	gpudp_pin_put(pin);
	return ret;
}

/* State of a pin. Takes gf->lock, then pin->lock (not nested). */
static int gpudp_ioc_query(struct gpudp_file *gf, void __user *uarg)
{
	struct gpudp_pin_query q;
	struct gpudp_pin *pin;
	int ret = 0;

	if (copy_from_user(&q, uarg, sizeof(q)))
		return -EFAULT;
	pin = gpudp_pin_get(gf, q.handle);
	if (!pin)
		return -ENOENT;

	memset(&q, 0, sizeof(q));
	q.handle = pin->handle;
	q.flags = pin->flags;
	q.aligned_va = pin->va;
	q.aligned_len = pin->len;
	q.mmap_offset = pin->mmap_off;
	mutex_lock(&pin->lock);
	switch (pin->state) {
	case GPUDP_VALID:
		q.state = GPUDP_PIN_STATE_VALID;
		q.page_size = pin->page_size;
		q.entries = pin->entries;
		if (pin->dma)
			q.flags |= GPUDP_PIN_QF_PEER_MAPPED;
		break;
	case GPUDP_REVOKED:
		q.state = GPUDP_PIN_STATE_REVOKED;
		break;
	default:
		ret = -ENOENT;		/* being unpinned by another thread */
	}
	mutex_unlock(&pin->lock);
	gpudp_pin_put(pin);

	if (!ret && copy_to_user(uarg, &q, sizeof(q)))
		ret = -EFAULT;
	return ret;
}

/*
 * Map for a peer: guide, "Kernel API", nvidia_p2p_dma_map_pages().
 * Takes gf->lock, then pin->lock (not nested; rule 4 for the call).
 */
static int gpudp_ioc_map_peer(struct gpudp_file *gf, void __user *uarg)
{
	struct nvidia_p2p_dma_mapping *dma = NULL;
	struct gpudp_pin_map_peer m;
	struct gpudp_pin *pin;
	struct pci_dev *pdev;
	int ret;

	if (copy_from_user(&m, uarg, sizeof(m)))
		return -EFAULT;
	if (m.pad0 || m.pad1)
		return -EINVAL;
	if (!gpudp_privileged())
		return -EPERM;
	pin = gpudp_pin_get(gf, m.handle);
	if (!pin)
		return -ENOENT;
	pdev = pci_get_domain_bus_and_slot(m.pci_domain, m.pci_bus,
					   m.pci_devfn);
	if (!pdev) {
		ret = -ENODEV;
		goto out_pin;
	}
	m.entries = pin->entries;
	m.page_size = pin->page_size;
	if (m.addrs && m.max_entries < pin->entries) {
		ret = -ERANGE;
		goto out_copy;
	}

	mutex_lock(&pin->lock);		/* rule 4 */
	if (pin->state != GPUDP_VALID) {
		ret = gpudp_pin_state_err(pin);
	} else if (pin->dma) {
		ret = -EBUSY;
	} else if (pin->page_size < GPUDP_PIN_GPU_PAGE_SIZE) {
		/* NVIDIA's dma_map_pages only handles 64 KiB and larger pages. */
		ret = -EOPNOTSUPP;
	} else {
		ret = nvidia_p2p_dma_map_pages(pdev, pin->pt, &dma);
		if (!ret && (!NVIDIA_P2P_DMA_MAPPING_VERSION_COMPATIBLE(dma) ||
			     dma->entries != pin->entries)) {
			pr_err_ratelimited("dma mapping version 0x%x entries %u not usable\n",
			       dma->version, dma->entries);
			nvidia_p2p_dma_unmap_pages(pdev, pin->pt, dma);
			ret = -EPROTO;
		}
		if (!ret) {
			pin->dma = dma;
			pin->peer = pdev;
			pdev = NULL;	/* reference moves to the pin */
		}
	}
	mutex_unlock(&pin->lock);
	if (ret)
		goto out_dev;
	if (m.addrs) {
		ret = gpudp_copy_addrs(pin, true, u64_to_user_ptr(m.addrs),
				       m.entries);
		if (ret)
			goto out_dev;
	}
out_copy:
	if ((!ret || ret == -ERANGE) && copy_to_user(uarg, &m, sizeof(m)))
		ret = -EFAULT;
out_dev:
	pci_dev_put(pdev);
out_pin:
	gpudp_pin_put(pin);
	return ret;
}

/* Takes gf->lock, then pin->lock (not nested; rule 4). */
static int gpudp_ioc_unmap_peer(struct gpudp_file *gf, void __user *uarg)
{
	struct gpudp_pin_handle h;
	struct gpudp_pin *pin;
	int ret = 0;

	if (copy_from_user(&h, uarg, sizeof(h)))
		return -EFAULT;
	pin = gpudp_pin_get(gf, h.handle);
	if (!pin)
		return -ENOENT;

	mutex_lock(&pin->lock);
	if (pin->state != GPUDP_VALID) {
		ret = gpudp_pin_state_err(pin);
	} else if (!pin->dma) {
		ret = -EINVAL;
	} else {
		nvidia_p2p_dma_unmap_pages(pin->peer, pin->pt, pin->dma);
		pin->dma = NULL;
		pci_dev_put(pin->peer);
		pin->peer = NULL;
	}
	mutex_unlock(&pin->lock);
	gpudp_pin_put(pin);
	return ret;
}

/* Dispatch; called without locks, each handler takes what it needs. */
static long gpudp_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct gpudp_file *gf = filp->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case GPUDP_PIN_IOC_VERSION:
		return gpudp_ioc_version(gf, uarg);
	case GPUDP_PIN_IOC_PIN:
		return gpudp_ioc_pin(gf, filp, uarg);
	case GPUDP_PIN_IOC_UNPIN:
		return gpudp_ioc_unpin(gf, uarg);
	case GPUDP_PIN_IOC_GET_TABLE:
		return gpudp_ioc_get_table(gf, uarg);
	case GPUDP_PIN_IOC_QUERY:
		return gpudp_ioc_query(gf, uarg);
	case GPUDP_PIN_IOC_MAP_PEER:
		return gpudp_ioc_map_peer(gf, uarg);
	case GPUDP_PIN_IOC_UNMAP_PEER:
		return gpudp_ioc_unmap_peer(gf, uarg);
	default:
		return -ENOTTY;
	}
}

/* VMA copied or split: one more reference. No lock. */
static void gpudp_vm_open(struct vm_area_struct *vma)
{
	struct gpudp_pin *pin = vma->vm_private_data;

	kref_get(&pin->ref);
}

/* VMA gone. No lock. */
static void gpudp_vm_close(struct vm_area_struct *vma)
{
	gpudp_pin_put(vma->vm_private_data);
}

/*
 * Insert the PFN of the faulting page. Called with mmap_lock held; takes
 * pin->lock. A revoked or unpinned pin gives SIGBUS. Inserting at fault
 * time (not in ->mmap) means the VMA is already on the file's i_mmap tree,
 * so a concurrent free callback's unmap_mapping_range() always sees it.
 */
static vm_fault_t gpudp_vm_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct gpudp_pin *pin = vma->vm_private_data;
	u64 off = ((u64)vmf->pgoff << PAGE_SHIFT) - pin->mmap_off;
	vm_fault_t ret = VM_FAULT_SIGBUS;
	u64 phys;

	mutex_lock(&pin->lock);
	if (pin->state == GPUDP_VALID && off < pin->len) {
		phys = pin->pt->pages[off / pin->page_size]->physical_address +
		       off % pin->page_size;
		ret = vmf_insert_pfn(vma, vmf->address, PHYS_PFN(phys));
	}
	mutex_unlock(&pin->lock);
	return ret;
}

static const struct vm_operations_struct gpudp_vm_ops = {
	.open = gpudp_vm_open,
	.close = gpudp_vm_close,
	.fault = gpudp_vm_fault,
};

/*
 * mmap a pinned range, write-combined. The offset selects the pin
 * (gpudp_pin_pin.mmap_offset, plus a page-aligned offset into the pin).
 * Called with mmap_lock held; takes gf->lock, then pin->lock.
 */
static int gpudp_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct gpudp_file *gf = filp->private_data;
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	u64 size = vma->vm_end - vma->vm_start;
	struct gpudp_pin *pin, *found = NULL;
	int ret = 0;

	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;

	mutex_lock(&gf->lock);
	list_for_each_entry(pin, &gf->pins, node) {
		if (off >= pin->mmap_off && off < pin->mmap_off + pin->len) {
			found = pin;
			kref_get(&pin->ref);
			break;
		}
	}
	mutex_unlock(&gf->lock);
	if (!found)
		return -ENXIO;
	if (size > found->mmap_off + found->len - off) {
		ret = -ENXIO;
		goto out;
	}

	mutex_lock(&found->lock);
	if (found->state != GPUDP_VALID)
		ret = gpudp_pin_state_err(found);
	mutex_unlock(&found->lock);
	if (ret)
		goto out;

#ifdef GPUDP_HAVE_VM_FLAGS_SET	/* Linux >= 6.3, probed by Kbuild */
	vm_flags_set(vma, VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP |
			  VM_DONTCOPY);
#else
	vma->vm_flags |= VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP |
			 VM_DONTCOPY;
#endif
	vma->vm_page_prot = pgprot_writecombine(vma->vm_page_prot);
	vma->vm_private_data = found;	/* the reference moves to the VMA */
	vma->vm_ops = &gpudp_vm_ops;
	return 0;
out:
	gpudp_pin_put(found);
	return ret;
}

/* New open file, no pins. No lock. */
static int gpudp_open(struct inode *inode, struct file *filp)
{
	struct gpudp_file *gf;

	gf = kzalloc(sizeof(*gf), GFP_KERNEL);
	if (!gf)
		return -ENOMEM;
	mutex_init(&gf->lock);
	INIT_LIST_HEAD(&gf->pins);
	filp->private_data = gf;
	return nonseekable_open(inode, filp);
}

/* Close: release every pin of the file. Takes gf->lock, then pin->lock. */
static int gpudp_release(struct inode *inode, struct file *filp)
{
	struct gpudp_file *gf = filp->private_data;
	struct gpudp_pin *pin, *tmp;
	LIST_HEAD(pins);

	mutex_lock(&gf->lock);
	list_splice_init(&gf->pins, &pins);
	gf->pinned_bytes = 0;
	mutex_unlock(&gf->lock);

	list_for_each_entry_safe(pin, tmp, &pins, node) {
		list_del_init(&pin->node);
		gpudp_pin_teardown(pin);
		gpudp_pin_put(pin);
	}
	mutex_destroy(&gf->lock);
	kfree(gf);
	return 0;
}

static const struct file_operations gpudp_fops = {
	.owner = THIS_MODULE,
	.open = gpudp_open,
	.release = gpudp_release,
	.unlocked_ioctl = gpudp_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = gpudp_mmap,
	.llseek = no_llseek,
};

static struct miscdevice gpudp_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = GPUDP_PIN_DEVICE_NAME,
	.fops = &gpudp_fops,
	.mode = 0600,
};

static int __init gpudp_pin_init(void)
{
	return misc_register(&gpudp_misc);
}

static void __exit gpudp_pin_exit(void)
{
	misc_deregister(&gpudp_misc);
}

module_init(gpudp_pin_init);
module_exit(gpudp_pin_exit);

MODULE_DESCRIPTION("gpudp: pin GPU memory for NIC DMA and CPU mapping (NV-P2P)");
MODULE_LICENSE("GPL");
