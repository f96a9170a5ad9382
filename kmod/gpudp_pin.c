// SPDX-License-Identifier: GPL-2.0
/*
 * gpudp_pin: pin GPU memory with NVIDIA's NV-P2P kernel API and hand it to
 * user space as a page table, as bus addresses for a peer PCI device and as
 * a write-combined CPU mapping. Also imports dma-bufs (what
 * cuMemGetHandleForAddressRange exports) as a dynamic importer that pins
 * them, and hands out their DMA addresses for a PCI device the same way.
 *
 * The NV-P2P rules followed here come from NVIDIA's guide "GPUDirect RDMA"
 * (CUDA documentation; "the guide" below); comments name its sections.
 * What user space may rely on is doc/architecture.md's "The module
 * contract"; the ioctls and errors are in doc/kmod.md.
 *
 * Two forms of the NV-P2P API: the desktop one (discrete GPUs) and the
 * Tegra one (Jetson, DRIVE: integrated GPUs, cudaHostAlloc memory; the
 * guide's section "Porting to Tegra"). features.sh finds which one the
 * nv-p2p.h in use declares and defines GPUDP_NV_P2P_TEGRA for the latter;
 * the gpudp_p2p_*() wrappers below are the only places that differ, plus
 * the pin granule (4 KiB on Tegra), the peer mapping's segments and the
 * caching of user mappings (gpudp_mmap()).
 *
 * Objects
 *   struct gpudp_file: one per open file, owns a list of pins.
 *   struct gpudp_pin: one pinned GPU VA range (kind NV_P2P) or one mapped
 *   range of a dma-buf (kind DMABUF). Reference counted: the file's list,
 *   every VMA mapping it and every ioctl in flight hold a reference.
 *   The provider's pages (or the dma-buf attachment) are released when the
 *   pin is unpinned or its file closed (gpudp_pin_teardown()), the struct
 *   itself when the last reference goes.
 *
 * Pin states (gpudp_pin.state, under gpudp_pin.lock)
 *   NEW -> VALID          get_pages succeeded and the table checked out
 *   VALID -> REVOKED      the free callback ran (memory freed under us);
 *                         dma-buf: the exporter's move_notify
 *   VALID -> UNPINNING    unpin/close is releasing the pages
 *   UNPINNING -> RELEASED the free callback ran during the release: the
 *                         one put_pages itself calls (Tegra: always), or
 *                         (desktop) a revocation racing with it; not a
 *                         revocation, the user asked for the pages to go
 *   * -> RELEASED         teardown finished; no callback can come any more
 *
 * Global lock order (outermost first):
 *
 *   mmap_lock                  taken by the mm core around ->mmap, ->fault
 *     gpudp_file.lock          mutex: pin list, pinned_bytes
 *     dma_buf.resv             ww_mutex of an imported dma-buf (DMABUF pins)
 *       gpudp_pin.lock         mutex: state, page table, DMA mapping
 *         i_mmap_rwsem         inside unmap_mapping_range()
 *
 *   gpudp_file.lock is a leaf: it is never held together with
 *   dma_buf.resv or gpudp_pin.lock (a lookup takes a pin reference under
 *   it and drops it before locking the pin). dma_buf.resv is taken before
 *   gpudp_pin.lock, never under it.
 *   1. No copy_to_user()/copy_from_user() with any of these locks held: a
 *      fault takes mmap_lock, which ranks above them (ABBA with
 *      ->mmap/->fault).
 *   2. The free callback takes gpudp_pin.lock and nothing else of ours; it
 *      never takes gpudp_file.lock (the provider calls it with its own locks
 *      held: guide, "Unpin Callback", last paragraph).
 *   3. nvidia_p2p_put_pages{,_persistent}() is called with no lock held:
 *      it may wait for a free callback of the same table that is in flight,
 *      and that callback waits for gpudp_pin.lock (guide, "Changes in CUDA
 *      12.2"). On Tegra put_pages also calls the callback itself, on the
 *      calling thread, before it returns (guide, "Porting to Tegra"): that
 *      callback takes gpudp_pin.lock too, which is free.
 *   4. nvidia_p2p_get_pages() is called with gpudp_pin.lock held, so that a
 *      callback firing right after registration waits until the pin is set
 *      up. nvidia_p2p_dma_map_pages()/dma_unmap_pages() are called with
 *      gpudp_pin.lock held, so that the callback cannot free the table under
 *      them. This assumes the provider does not run a free callback while
 *      holding a lock those three functions need (true of the simulator;
 *      for real drivers, prefer persistent pins for peer mappings: they have
 *      no callback).
 *
 *   5. DMABUF pins: the exporter calls move_notify with dma_buf.resv held,
 *      and dma_buf_{pin,unpin}() and dma_buf_{map,unmap}_attachment() need
 *      it held (dynamic importer), so every change of such a pin's mapping
 *      happens under dma_buf.resv, then gpudp_pin.lock. Never take
 *      dma_buf.resv with gpudp_pin.lock held.
 *
 * Provider contract assumed (the simulator implements it): the free
 * callback is never invoked for a table whose get_pages call failed, and
 * once nvidia_p2p_put_pages() has returned, the callback of that table has
 * either returned or will never be invoked. Tegra: the callback runs once
 * per table, and a table whose callback ran is not handed to put_pages
 * again.
 *
 * Who frees the page table (nvidia_p2p_free_page_table(), always ours):
 * the free callback, except for a Tegra revocation that races with
 * put_pages (the callback runs on another thread while the pin is
 * UNPINNING): teardown may still be about to pass the table to put_pages,
 * so the callback leaves it, and gpudp_pin_teardown() frees it once
 * put_pages has returned. The thread in put_pages is pin->putter, which is
 * how the callback tells its own put_pages from a revocation.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/capability.h>
#include <linux/completion.h>
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "gpudp_features.h"	/* generated by features.sh (Kbuild) */
#include "gpudp_nv_p2p.h"
#include "gpudp_pin_args.h"
#include "include/uapi/gpudp_pin.h"

#ifdef GPUDP_NV_P2P_TEGRA
/*
 * Tegra: host memory, pinned in 4 KiB units (guide, "Porting to Tegra",
 * "Other highlights"), and never less than a CPU page, which mmap needs.
 */
#define GPUDP_PIN_GRANULE	max_t(u64, PAGE_SIZE, GPUDP_PIN_TEGRA_PAGE_SIZE)
#define GPUDP_TEGRA		true
#else
#define GPUDP_PIN_GRANULE	GPUDP_PIN_GPU_PAGE_SIZE
#define GPUDP_TEGRA		false
#ifdef NVIDIA_P2P_CAP_GET_PAGES_PERSISTENT_API
#define GPUDP_HAVE_PERSISTENT	/* the Tegra API has no persistent pins */
#endif
#endif

/* Highest mmap offset handed out; keeps offset + length below 2^63. */
#define GPUDP_MMAP_OFF_LIMIT	BIT_ULL(62)

static unsigned long long max_pinned_bytes = 16ULL << 30;
module_param(max_pinned_bytes, ullong, 0644);
MODULE_PARM_DESC(max_pinned_bytes,
		 "Most bytes one open file may have pinned at a time (default 16 GiB)");

/* dma-buf import needs the kernel's dma-buf core. */
#define GPUDP_HAVE_DMABUF	IS_ENABLED(CONFIG_DMA_SHARED_BUFFER)

enum gpudp_pin_kind {
	GPUDP_KIND_NV_P2P,		/* PIN: nvidia_p2p_get_pages */
	GPUDP_KIND_DMABUF,		/* ATTACH_DMABUF: dynamic importer */
};

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
	struct pci_dev *peer;			/* with dma; DMABUF: device */
	struct task_struct *putter;	/* UNPINNING: thread in put_pages */
	bool cb_ran;			/* free callback entered its section */
	struct completion cb_done;	/* free callback returned */
	struct sg_table *sgt;		/* DMABUF, VALID only: the mapping */
	u64 *addrs;			/* DMABUF, VALID only: page addresses */

	/* Immutable once the pin is on its file's list. */
	enum gpudp_pin_kind kind;
	struct dma_buf *dmabuf;		/* DMABUF: our reference */
	struct dma_buf_attachment *attach;	/* DMABUF */
	u64 handle;
	u64 va;				/* 64 KiB aligned; DMABUF: offset */
	u64 len;			/* 64 KiB multiple */
	u64 mmap_off;
	u32 flags;			/* GPUDP_PIN_F_* */
	u32 page_size;			/* bytes */
	u32 entries;
	struct address_space *mapping;	/* of the file that made the pin */
};

static struct miscdevice gpudp_misc;
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
 * The NV-P2P calls whose form differs between the desktop and the Tegra
 * API (GPUDP_NV_P2P_TEGRA, found by features.sh). Locks: as their callers
 * say (rules 3 and 4).
 */
#ifdef GPUDP_NV_P2P_TEGRA
static int gpudp_p2p_get_pages(struct gpudp_pin *pin, void (*cb)(void *data))
{
	return nvidia_p2p_get_pages(pin->va, pin->len, &pin->pt, cb, pin);
}

/* Calls the free callback before it returns (guide, "Porting to Tegra"). */
static int gpudp_p2p_put_pages(struct gpudp_pin *pin,
			       struct nvidia_p2p_page_table *pt)
{
	return nvidia_p2p_put_pages(pt);
}

/* Host pages: struct page pointers. */
static u64 gpudp_p2p_page_addr(struct nvidia_p2p_page_table *pt, u32 i)
{
	return page_to_phys(pt->pages[i]);
}

/*
 * For the NIC's own struct device. Bidirectional: the NIC writes received
 * packets into these buffers and reads the ones it transmits.
 */
static int gpudp_p2p_dma_map(struct gpudp_pin *pin, struct pci_dev *pdev,
			     struct nvidia_p2p_dma_mapping **dma)
{
	return nvidia_p2p_dma_map_pages(&pdev->dev, pin->pt, dma,
					DMA_BIDIRECTIONAL);
}

static int gpudp_p2p_dma_unmap(struct gpudp_pin *pin)
{
	return nvidia_p2p_dma_unmap_pages(pin->dma);
}

/*
 * A Tegra mapping is a list of segments (contiguous pages may be merged):
 * usable when each starts and ends on a pin page and together they cover
 * the pin exactly.
 */
static bool gpudp_p2p_dma_usable(struct gpudp_pin *pin,
				 struct nvidia_p2p_dma_mapping *dma)
{
	u64 total = 0;
	u32 i;

	if (!dma->entries || !dma->hw_address || !dma->hw_len)
		return false;
	for (i = 0; i < dma->entries; i++) {
		if (!dma->hw_len[i] ||
		    (dma->hw_address[i] | dma->hw_len[i]) % pin->page_size)
			return false;
		total += dma->hw_len[i];
	}
	return total == pin->len;
}

/* One bus address per pin page, @n of them. Caller holds pin->lock. */
static void gpudp_p2p_dma_addrs(struct gpudp_pin *pin, u64 *buf, u32 n)
{
	struct nvidia_p2p_dma_mapping *dma = pin->dma;
	u32 i, k = 0;
	u64 off;

	for (i = 0; i < dma->entries; i++)
		for (off = 0; off < dma->hw_len[i] && k < n;
		     off += pin->page_size)
			buf[k++] = dma->hw_address[i] + off;
}
#else
static int gpudp_p2p_get_pages(struct gpudp_pin *pin, void (*cb)(void *data))
{
#ifdef GPUDP_HAVE_PERSISTENT
	if (pin->flags & GPUDP_PIN_F_PERSISTENT)
		return nvidia_p2p_get_pages_persistent(pin->va, pin->len,
						       &pin->pt, 0);
#endif
	/* Guide, "Pinning GPU memory": tokens are zero since CUDA 6.0. */
	return nvidia_p2p_get_pages(0, 0, pin->va, pin->len, &pin->pt, cb,
				    pin);
}

static int gpudp_p2p_put_pages(struct gpudp_pin *pin,
			       struct nvidia_p2p_page_table *pt)
{
#ifdef GPUDP_HAVE_PERSISTENT
	if (pin->flags & GPUDP_PIN_F_PERSISTENT)
		return nvidia_p2p_put_pages_persistent(pin->va, pt, 0);
#endif
	/* Guide, "Unpinning GPU memory": tokens are zero since CUDA 6.0. */
	return nvidia_p2p_put_pages(0, 0, pin->va, pt);
}

static u64 gpudp_p2p_page_addr(struct nvidia_p2p_page_table *pt, u32 i)
{
	return pt->pages[i]->physical_address;
}

static int gpudp_p2p_dma_map(struct gpudp_pin *pin, struct pci_dev *pdev,
			     struct nvidia_p2p_dma_mapping **dma)
{
	return nvidia_p2p_dma_map_pages(pdev, pin->pt, dma);
}

static int gpudp_p2p_dma_unmap(struct gpudp_pin *pin)
{
	return nvidia_p2p_dma_unmap_pages(pin->peer, pin->pt, pin->dma);
}

static bool gpudp_p2p_dma_usable(struct gpudp_pin *pin,
				 struct nvidia_p2p_dma_mapping *dma)
{
	return NVIDIA_P2P_DMA_MAPPING_VERSION_COMPATIBLE(dma) &&
	       dma->entries == pin->entries;
}

static void gpudp_p2p_dma_addrs(struct gpudp_pin *pin, u64 *buf, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		buf[i] = pin->dma->dma_addresses[i];
}
#endif

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
 * Free callback (guide, "Handling the free callback", "Unpin Callback";
 * Tegra: "Porting to Tegra", "Other highlights"). Runs whenever the
 * provider revokes the pages, possibly while an unpin, a close, an mmap, a
 * fault or another ioctl on the same pin is in flight; on Tegra also from
 * inside our own put_pages. Takes pin->lock only (rule 2). Frees the
 * provider's objects with nvidia_p2p_free_dma_mapping() and
 * nvidia_p2p_free_page_table(), never with put_pages. The pin memory stays
 * valid until cb_done is completed: gpudp_pin_teardown() waits for it.
 *
 * A revocation (the pin is VALID) zaps the user mappings and leaves the pin
 * REVOKED for user space to see. During a release (UNPINNING) teardown has
 * zapped the mappings and unmapped the peer already: the callback only
 * frees the table, and not even that when it is a Tegra revocation on
 * another thread, which would free the table teardown is about to pass to
 * put_pages (the comment at the top, "Who frees the page table").
 */
static void gpudp_pin_free_cb(void *data)
{
	struct gpudp_pin *pin = data;
	bool ours;

	mutex_lock(&pin->lock);
	if (pin->state == GPUDP_VALID) {
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
	} else if (pin->state == GPUDP_UNPINNING) {
		ours = pin->putter == current;
		if (ours || !GPUDP_TEGRA) {
			nvidia_p2p_free_page_table(pin->pt);
			pin->pt = NULL;
			pin->state = GPUDP_RELEASED;
		}
	}
	pin->cb_ran = true;
	mutex_unlock(&pin->lock);
	complete(&pin->cb_done);
}

#if GPUDP_HAVE_DMABUF
/*
 * Drop the mapping of a DMABUF pin. Caller holds dma_buf.resv and
 * pin->lock (rule 5).
 */
static void gpudp_dmabuf_unmap(struct gpudp_pin *pin)
{
	dma_resv_assert_held(pin->dmabuf->resv);
	lockdep_assert_held(&pin->lock);
	if (pin->sgt)
		dma_buf_unmap_attachment(pin->attach, pin->sgt,
					 DMA_BIDIRECTIONAL);
	pin->sgt = NULL;
	kvfree(pin->addrs);
	pin->addrs = NULL;
}

/*
 * The exporter revokes the buffer (a dma-buf of GPU memory is revoked when
 * the memory is freed). The attachment is pinned (dma_buf_pin()), so the
 * exporter may not move it: a move_notify means revocation. Called by
 * dma_buf_move_notify() (dma_buf_invalidate_mappings() where the callback
 * is named invalidate_mappings) with dma_buf.resv held; takes pin->lock
 * (rule 5).
 * The pin is revoked exactly as by the NV-P2P free callback: QUERY reports
 * REVOKED, GET_TABLE -EIDRM.
 */
static void gpudp_dmabuf_move_notify(struct dma_buf_attachment *attach)
{
	struct gpudp_pin *pin = attach->importer_priv;

	mutex_lock(&pin->lock);
	if (pin->state == GPUDP_VALID)
		gpudp_dmabuf_unmap(pin);
	if (pin->state == GPUDP_VALID || pin->state == GPUDP_NEW)
		pin->state = GPUDP_REVOKED;
	mutex_unlock(&pin->lock);
}

static const struct dma_buf_attach_ops gpudp_dmabuf_importer_ops = {
	.allow_peer2peer = true,
#ifdef GPUDP_HAVE_DMABUF_INVALIDATE_MAPPINGS
	.invalidate_mappings = gpudp_dmabuf_move_notify,
#else
	.move_notify = gpudp_dmabuf_move_notify,
#endif
};

/*
 * Detach a DMABUF pin (unpin or close). No lock held by the caller; takes
 * dma_buf.resv, then pin->lock. On return no move_notify for this pin is
 * running or can run any more: dma_buf_detach() takes the attachment off
 * the buffer's list under dma_buf.resv.
 */
static void gpudp_dmabuf_teardown(struct gpudp_pin *pin)
{
	dma_resv_lock(pin->dmabuf->resv, NULL);
	mutex_lock(&pin->lock);
	if (pin->state == GPUDP_VALID)
		gpudp_dmabuf_unmap(pin);
	pin->state = GPUDP_RELEASED;
	mutex_unlock(&pin->lock);
	/* Pinned by gpudp_ioc_attach_dmabuf(), revoked or not. */
	dma_buf_unpin(pin->attach);
	dma_resv_unlock(pin->dmabuf->resv);

	dma_buf_detach(pin->dmabuf, pin->attach);
	pin->attach = NULL;
	dma_buf_put(pin->dmabuf);
	pin->dmabuf = NULL;
	pci_dev_put(pin->peer);
	pin->peer = NULL;
}
#else
static void gpudp_dmabuf_teardown(struct gpudp_pin *pin)
{
}
#endif

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

	if (pin->kind == GPUDP_KIND_DMABUF) {
		gpudp_dmabuf_teardown(pin);
		return;
	}
	mutex_lock(&pin->lock);
	gpudp_pin_zap(pin);
	if (pin->state == GPUDP_VALID) {
		if (pin->dma) {
			/* Not from the callback (guide, "Kernel API"). */
			gpudp_p2p_dma_unmap(pin);
			pin->dma = NULL;
			pci_dev_put(pin->peer);
			pin->peer = NULL;
		}
		pin->state = GPUDP_UNPINNING;
		pin->putter = current;
		pt = pin->pt;
	}
	mutex_unlock(&pin->lock);

	if (pt) {
		ret = gpudp_p2p_put_pages(pin, pt);
		if (ret)
			pr_err_ratelimited("put_pages va 0x%llx len 0x%llx: %d\n",
			       pin->va, pin->len, ret);
	}

	mutex_lock(&pin->lock);
	cb_ran = pin->cb_ran;
	/*
	 * Tegra: a revocation on another thread ran the callback while we
	 * were UNPINNING and left the table to us (the callback's comment).
	 */
	if (GPUDP_TEGRA && cb_ran && pin->pt)
		nvidia_p2p_free_page_table(pin->pt);
	pin->pt = NULL;
	pin->putter = NULL;
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

#ifdef NVIDIA_P2P_PAGE_TABLE_VERSION_COMPATIBLE	/* Tegra: no version */
	if (!NVIDIA_P2P_PAGE_TABLE_VERSION_COMPATIBLE(pt)) {
		pr_err_ratelimited("page table version 0x%x not compatible with 0x%x\n",
		       pt->version, NVIDIA_P2P_PAGE_TABLE_VERSION);
		return -EPROTO;
	}
#endif
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

/* A NEW pin of @kind over [@va, @va + @len), one reference, on no list. */
static struct gpudp_pin *gpudp_pin_alloc(enum gpudp_pin_kind kind, u64 va,
					 u64 len)
{
	struct gpudp_pin *pin;

	pin = kzalloc(sizeof(*pin), GFP_KERNEL);
	if (!pin)
		return NULL;
	kref_init(&pin->ref);
	INIT_LIST_HEAD(&pin->node);
	mutex_init(&pin->lock);
	init_completion(&pin->cb_done);
	pin->kind = kind;
	pin->state = GPUDP_NEW;
	pin->va = va;
	pin->len = len;
	return pin;
}

/*
 * Reserve @len bytes of @gf's budget @cap before pinning, so that
 * concurrent pins cannot overshoot it. Takes gf->lock.
 */
static int gpudp_reserve(struct gpudp_file *gf, u64 len, u64 cap)
{
	int ret = 0;

	mutex_lock(&gf->lock);
	if (gf->pinned_bytes + len > cap)
		ret = -ENOSPC;
	else
		gf->pinned_bytes += len;
	mutex_unlock(&gf->lock);
	return ret;
}

/* Give back what gpudp_reserve() took. Takes gf->lock. */
static void gpudp_unreserve(struct gpudp_file *gf, u64 len)
{
	mutex_lock(&gf->lock);
	gf->pinned_bytes -= len;
	mutex_unlock(&gf->lock);
}

/* Version and budget. Takes gf->lock. */
static int gpudp_ioc_version(struct gpudp_file *gf, void __user *uarg)
{
	struct gpudp_pin_version v = {
		.abi_major = GPUDP_PIN_ABI_MAJOR,
		.abi_minor = GPUDP_PIN_ABI_MINOR,
		.max_pinned_bytes = READ_ONCE(max_pinned_bytes),
	};

#ifdef GPUDP_HAVE_PERSISTENT
	v.caps |= GPUDP_PIN_CAP_PERSISTENT;
#endif
#ifdef GPUDP_HAVE_NV_P2P_H
	v.caps |= GPUDP_PIN_CAP_NV_P2P_H;
#endif
#ifdef GPUDP_NV_P2P_TEGRA
	v.caps |= GPUDP_PIN_CAP_TEGRA;
#endif
	if (GPUDP_HAVE_DMABUF)
		v.caps |= GPUDP_PIN_CAP_DMABUF;
	mutex_lock(&gf->lock);
	v.pinned_bytes = gf->pinned_bytes;
	mutex_unlock(&gf->lock);

	return copy_to_user(uarg, &v, sizeof(v)) ? -EFAULT : 0;
}

/*
 * Make a pin visible under its handle and copy the reply, which the caller
 * filled before (once listed, another thread may unpin the predictable
 * handle and free the pin). If the copy fails nobody learnt the handle:
 * undo (-ENOENT from the unpin if it is already gone).
 */
static int gpudp_publish(struct gpudp_file *gf, struct gpudp_pin *pin,
			 void __user *uarg, const void *reply, size_t size)
{
	u64 handle = pin->handle;

	mutex_lock(&gf->lock);
	list_add_tail(&pin->node, &gf->pins);
	mutex_unlock(&gf->lock);

	if (copy_to_user(uarg, reply, size)) {
		gpudp_unpin_handle(gf, handle);
		return -EFAULT;
	}
	return 0;
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
	/*
	 * Round to 64 KiB, as the guide's kmd_pin_memory() does; Tegra: to
	 * 4 KiB.
	 */
	ret = gpudp_pin_args_pin(&a, GPUDP_PIN_GRANULE, &start, &end);
	if (ret)
		return ret;
#ifndef GPUDP_HAVE_PERSISTENT
	if (a.flags & GPUDP_PIN_F_PERSISTENT)
		return -EOPNOTSUPP;
#endif
	len = end - start;
	cap = READ_ONCE(max_pinned_bytes);
	if (len > cap)
		return -E2BIG;

	pin = gpudp_pin_alloc(GPUDP_KIND_NV_P2P, start, len);
	if (!pin)
		return -ENOMEM;
	pin->flags = a.flags;
	pin->mapping = filp->f_mapping;

	ret = gpudp_reserve(gf, len, cap);
	if (ret) {
		gpudp_pin_put(pin);
		return ret;
	}

	pin->mmap_off = atomic64_fetch_add(len, &gpudp_next_mmap_off);
	if (pin->mmap_off + len > GPUDP_MMAP_OFF_LIMIT) {
		ret = -ENOSPC;
		goto err_unreserve;
	}

	mutex_lock(&pin->lock);		/* rule 4 */
	ret = gpudp_p2p_get_pages(pin, gpudp_pin_free_cb);
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

	/*
	 * Fill the reply before publishing: once the pin is on the list,
	 * another thread may unpin its (predictable) handle and free it.
	 */
	pin->handle = atomic64_inc_return(&gpudp_next_handle);
	a.handle = pin->handle;
	a.aligned_va = start;
	a.aligned_len = len;
	a.offset = a.va - start;
	a.mmap_offset = pin->mmap_off;
	return gpudp_publish(gf, pin, uarg, &a, sizeof(a));

err_unreserve:
	gpudp_unreserve(gf, len);
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
	} else if (pin->kind == GPUDP_KIND_DMABUF) {
		memcpy(buf, pin->addrs, (size_t)n * sizeof(*buf));
	} else if (from_dma) {
		gpudp_p2p_dma_addrs(pin, buf, n);
	} else {
		for (i = 0; i < n; i++)
			buf[i] = gpudp_p2p_page_addr(pin->pt, i);
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
	if (gpudp_pin_args_table(&t))
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
	if (pin->kind == GPUDP_KIND_DMABUF)
		q.flags |= GPUDP_PIN_QF_DMABUF;
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
	if (gpudp_pin_args_map_peer(&m))
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
	} else if (pin->kind == GPUDP_KIND_DMABUF) {
		/* Mapped for its device by ATTACH_DMABUF already. */
		ret = -EOPNOTSUPP;
	} else if (pin->dma) {
		ret = -EBUSY;
	} else if (!GPUDP_TEGRA &&
		   pin->page_size < GPUDP_PIN_GPU_PAGE_SIZE) {
		/* NVIDIA's desktop dma_map_pages only handles 64 KiB and up. */
		ret = -EOPNOTSUPP;
	} else {
		ret = gpudp_p2p_dma_map(pin, pdev, &dma);
		if (!ret) {
			pin->dma = dma;
			pin->peer = pdev;
			pdev = NULL;	/* reference moves to the pin */
			if (!gpudp_p2p_dma_usable(pin, dma)) {
				pr_err_ratelimited("dma mapping of %u entries not usable for %u pages\n",
						   dma->entries, pin->entries);
				gpudp_p2p_dma_unmap(pin);
				pin->dma = NULL;
				pdev = pin->peer;	/* put below */
				pin->peer = NULL;
				ret = -EPROTO;
			}
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
	} else if (pin->kind == GPUDP_KIND_DMABUF) {
		ret = -EOPNOTSUPP;	/* as MAP_PEER */
	} else if (!pin->dma) {
		ret = -EINVAL;
	} else {
		gpudp_p2p_dma_unmap(pin);
		pin->dma = NULL;
		pci_dev_put(pin->peer);
		pin->peer = NULL;
	}
	mutex_unlock(&pin->lock);
	gpudp_pin_put(pin);
	return ret;
}

#if GPUDP_HAVE_DMABUF
/*
 * The table of a DMABUF pin, from the exporter's mapping: one address per
 * 64 KiB page of [pin->va, pin->va + pin->len) of the buffer when each of
 * those pages is contiguous in DMA space, else one per PAGE_SIZE page.
 * dma-buf mappings are PAGE_SIZE aligned; anything else, or a mapping that
 * does not cover the range, is -EPROTO. Caller holds dma_buf.resv.
 */
static int gpudp_dmabuf_table(struct gpudp_pin *pin, struct sg_table *sgt,
			      u64 **addrsp)
{
	const u64 per = GPUDP_PIN_GPU_PAGE_SIZE >> PAGE_SHIFT;
	u64 n = pin->len >> PAGE_SHIFT, end = pin->va + pin->len;
	u64 pos = 0, k = 0, i, j, addr, dlen, off;
	struct scatterlist *sg;
	u64 *a;
	int si;

	BUILD_BUG_ON(PAGE_SIZE > GPUDP_PIN_GPU_PAGE_SIZE);
	a = kvmalloc_array(n, sizeof(*a), GFP_KERNEL);
	if (!a)
		return -ENOMEM;
	for_each_sgtable_dma_sg(sgt, sg, si) {
		addr = sg_dma_address(sg);
		dlen = sg_dma_len(sg);
		if (!PAGE_ALIGNED(addr) || !PAGE_ALIGNED(dlen))
			goto bad;
		off = pin->va > pos ? min(pin->va - pos, dlen) : 0;
		for (; off < dlen && pos + off < end; off += PAGE_SIZE)
			a[k++] = addr + off;
		pos += dlen;
		if (pos >= end)
			break;
	}
	if (k != n)
		goto bad;

	pin->page_size = GPUDP_PIN_GPU_PAGE_SIZE;
	for (i = 0; i < n && pin->page_size != PAGE_SIZE; i += per)
		for (j = 1; j < per; j++)
			if (a[i + j] != a[i] + (j << PAGE_SHIFT))
				pin->page_size = PAGE_SIZE;
	if (pin->page_size == GPUDP_PIN_GPU_PAGE_SIZE)
		for (i = 0; i < n / per; i++)
			a[i] = a[i * per];
	pin->entries = pin->len / pin->page_size;
	*addrsp = a;
	return 0;
bad:
	pr_err_ratelimited("dma-buf mapping does not cover offset 0x%llx len 0x%llx in page-aligned segments\n",
			   pin->va, pin->len);
	kvfree(a);
	return -EPROTO;
}

/*
 * Map a new DMABUF pin for its device and build its table; the pin becomes
 * VALID. Caller holds dma_buf.resv (rule 5); takes pin->lock. -EIDRM if the
 * exporter revoked the buffer since dma_buf_dynamic_attach().
 */
static int gpudp_dmabuf_map(struct gpudp_pin *pin)
{
	struct sg_table *sgt;
	u64 *addrs = NULL;
	long wait;
	int ret;

	dma_resv_assert_held(pin->dmabuf->resv);
	mutex_lock(&pin->lock);
	ret = pin->state == GPUDP_NEW ? 0 : -EIDRM;
	mutex_unlock(&pin->lock);
	if (ret)
		return ret;

	sgt = dma_buf_map_attachment(pin->attach, DMA_BIDIRECTIONAL);
	if (IS_ERR(sgt))
		return PTR_ERR(sgt);
	/* Dynamic importers wait for the exporter's kernel fences. */
	wait = dma_resv_wait_timeout(pin->dmabuf->resv, DMA_RESV_USAGE_KERNEL,
				     true, MAX_SCHEDULE_TIMEOUT);
	ret = wait < 0 ? wait : gpudp_dmabuf_table(pin, sgt, &addrs);
	if (ret) {
		dma_buf_unmap_attachment(pin->attach, sgt, DMA_BIDIRECTIONAL);
		return ret;
	}

	mutex_lock(&pin->lock);
	pin->sgt = sgt;
	pin->addrs = addrs;
	pin->state = GPUDP_VALID;
	mutex_unlock(&pin->lock);
	return 0;
}

/*
 * Attach a dma-buf as a dynamic importer (peer-to-peer allowed) and map
 * [offset, offset + len) of it for a PCI device, or for our own device
 * (CPU physical addresses). Takes gf->lock, then dma_buf.resv and
 * pin->lock (rule 5); gf->lock is not nested with them.
 */
static int gpudp_ioc_attach_dmabuf(struct gpudp_file *gf, void __user *uarg)
{
	struct dma_buf_attachment *attach;
	struct pci_dev *pdev = NULL;
	struct gpudp_pin_dmabuf a;
	struct dma_buf *dmabuf;
	struct gpudp_pin *pin;
	struct device *dev;
	u64 cap;
	int ret;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	ret = gpudp_pin_args_dmabuf(&a);
	if (ret)
		return ret;
	/* Maps memory for DMA by a device, as MAP_PEER does. */
	if (!gpudp_privileged())
		return -EPERM;
	cap = READ_ONCE(max_pinned_bytes);
	if (a.len > cap || (a.len >> PAGE_SHIFT) > U32_MAX)
		return -E2BIG;

	dmabuf = dma_buf_get(a.fd);
	if (IS_ERR(dmabuf)) {
		/* dma_buf_get(): -EBADF no such fd, -EINVAL not a dma-buf */
		ret = PTR_ERR(dmabuf);
		return ret == -EINVAL ? -EBADFD : ret;
	}
	if (a.offset + a.len > dmabuf->size) {
		ret = -ENXIO;
		goto err_put;
	}
	if (a.flags & GPUDP_PIN_DMABUF_F_PCI) {
		pdev = pci_get_domain_bus_and_slot(a.pci_domain, a.pci_bus,
						   a.pci_devfn);
		if (!pdev) {
			ret = -ENODEV;
			goto err_put;
		}
		dev = &pdev->dev;
	} else {
		dev = gpudp_misc.this_device;
	}

	pin = gpudp_pin_alloc(GPUDP_KIND_DMABUF, a.offset, a.len);
	if (!pin) {
		ret = -ENOMEM;
		goto err_dev;
	}
	pin->dmabuf = dmabuf;

	ret = gpudp_reserve(gf, a.len, cap);
	if (ret)
		goto err_free;

	attach = dma_buf_dynamic_attach(dmabuf, dev, &gpudp_dmabuf_importer_ops,
					pin);
	if (IS_ERR(attach)) {
		ret = PTR_ERR(attach);
		goto err_unreserve;
	}
	pin->attach = attach;
	/*
	 * Pin it: user space hands the addresses to a NIC, which cannot
	 * follow a move (as RDMA's pinned dma-buf umem). A move_notify after
	 * this only means revocation.
	 */
	dma_resv_lock(dmabuf->resv, NULL);
	ret = dma_buf_pin(attach);
	if (!ret) {
		ret = gpudp_dmabuf_map(pin);
		if (ret)
			dma_buf_unpin(attach);
	}
	dma_resv_unlock(dmabuf->resv);
	if (ret) {
		dma_buf_detach(dmabuf, attach);
		goto err_unreserve;
	}

	pin->peer = pdev;	/* references move to the pin */
	/* Reply filled before publishing, as in gpudp_ioc_pin(). */
	pin->handle = atomic64_inc_return(&gpudp_next_handle);
	a.handle = pin->handle;
	a.entries = pin->entries;
	a.page_size = pin->page_size;
	a.size = dmabuf->size;
	return gpudp_publish(gf, pin, uarg, &a, sizeof(a));

err_unreserve:
	gpudp_unreserve(gf, a.len);
err_free:
	gpudp_pin_put(pin);
err_dev:
	pci_dev_put(pdev);
err_put:
	dma_buf_put(dmabuf);
	return ret;
}
#else
static int gpudp_ioc_attach_dmabuf(struct gpudp_file *gf, void __user *uarg)
{
	return -EOPNOTSUPP;
}
#endif

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
	case GPUDP_PIN_IOC_ATTACH_DMABUF:
		return gpudp_ioc_attach_dmabuf(gf, uarg);
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
		phys = gpudp_p2p_page_addr(pin->pt, off / pin->page_size) +
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
 * mmap a pinned range. GPU memory behind a BAR is mapped write-combined.
 * Tegra: host memory, whose mapping must match its allocation (guide,
 * "Porting to Tegra", "Other highlights"): write-combined for memory
 * allocated write-combined (the pin made with GPUDP_PIN_F_WC), otherwise
 * vm_page_prot untouched. The offset selects the pin
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
		if (pin->kind == GPUDP_KIND_NV_P2P && off >= pin->mmap_off &&
		    off < pin->mmap_off + pin->len) {
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

#ifdef GPUDP_HAVE_VM_FLAGS_SET
	vm_flags_set(vma, VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP |
			  VM_DONTCOPY);
#else
	vma->vm_flags |= VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP |
			 VM_DONTCOPY;
#endif
	if (!GPUDP_TEGRA || (found->flags & GPUDP_PIN_F_WC))
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
#ifdef GPUDP_HAVE_NO_LLSEEK
	.llseek = no_llseek,	/* later kernels: NULL says the same */
#endif
};

static struct miscdevice gpudp_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = GPUDP_PIN_DEVICE_NAME,
	.fops = &gpudp_fops,
	.mode = 0600,
};

static int __init gpudp_pin_init(void)
{
	int ret;

	ret = misc_register(&gpudp_misc);
	if (ret || !GPUDP_HAVE_DMABUF)
		return ret;
	/*
	 * dma-bufs attached without a PCI device are mapped for the misc
	 * device: no IOMMU translates for it, its DMA addresses are the CPU
	 * physical addresses.
	 */
	ret = dma_coerce_mask_and_coherent(gpudp_misc.this_device,
					   DMA_BIT_MASK(64));
	if (ret)
		misc_deregister(&gpudp_misc);
	return ret;
}

static void __exit gpudp_pin_exit(void)
{
	misc_deregister(&gpudp_misc);
}

module_init(gpudp_pin_init);
module_exit(gpudp_pin_exit);

MODULE_DESCRIPTION("gpudp: pin GPU memory (NV-P2P) and import dma-bufs for NIC DMA and CPU mapping");
MODULE_LICENSE("GPL");
#if GPUDP_HAVE_DMABUF
#ifdef GPUDP_IMPORT_NS_BARE
MODULE_IMPORT_NS(DMA_BUF);
#else
MODULE_IMPORT_NS("DMA_BUF");
#endif
#endif
