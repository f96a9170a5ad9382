// SPDX-License-Identifier: GPL-2.0
/*
 * nvidia_p2p_sim: TEST-ONLY simulator of the NVIDIA NV-P2P kernel API.
 *
 * Exports the nvidia_p2p_* functions that gpudp_pin uses, backed by ordinary
 * RAM pages standing in for GPU memory, so that gpudp_pin can be loaded and
 * exercised in a VM without a GPU. /dev/nvidia_p2p_sim allocates and frees
 * the fake GPU memory (freeing fires the free callbacks, like cudaFree),
 * reads and writes it, injects faults and reports counters. It also checks
 * the client against the rules of NVIDIA's GPUDirect RDMA guide and counts
 * every violation.
 *
 * Semantics copied from the guide ("Kernel API", "Unpin Callback",
 * "Changes in CUDA 12.2"):
 *  - get_pages needs a callback, 64 KiB aligned address and length;
 *  - the free callback must call nvidia_p2p_free_page_table() and
 *    nvidia_p2p_free_dma_mapping(), never put_pages or dma_unmap_pages;
 *  - put_pages on a table that the GPU side already tore down returns 0;
 *    if that teardown is in flight, put_pages waits for it to finish.
 *
 * It also exports ranges of the fake GPU memory as dma-bufs (dynamic
 * exporter: pin/unpin ops, counted), the way the NVIDIA driver does for
 * cuMemGetHandleForAddressRange(CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD). FREE
 * revokes them: dma_buf_move_notify() to dynamic importers, whose mappings
 * must then be gone; later mappings fail with -EIDRM.
 *
 * Locking: sim_lock (mutex) protects the allocation, table and export
 * lists and every field marked below. It is never held while a client
 * callback runs. dma_buf.resv ranks above sim_lock (the map and unmap ops
 * run under resv and take sim_lock), so resv is never taken under sim_lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/delay.h>
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
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "gpudp_nv_p2p.h"
#include "nvidia_p2p_sim_uapi.h"

#define SIM_CHUNK_ORDER		4			/* 64 KiB chunks */
#define SIM_CHUNK_SIZE		(PAGE_SIZE << SIM_CHUNK_ORDER)
#define SIM_VA_BASE		(1ULL << 40)
#define SIM_MAX_ALLOC		(256ULL << 20)

struct sim_alloc {
	struct list_head node;		/* sim_allocs */
	u64 va;
	u64 len;
	struct page **chunks;
	unsigned int nchunks;
	struct file *owner;
	unsigned int persistent_users;	/* sim_lock */
};

struct sim_table {
	struct nvidia_p2p_page_table pt;	/* handed to the client */
	struct kref ref;
	struct list_head node;		/* sim_tables, until fully freed */
	struct sim_alloc *alloc;
	bool persistent;
	bool registered;		/* callback may still be fired */
	bool in_callback;		/* callback running (sim_lock) */
	bool client_freed;		/* free_page_table was called */
	bool run_by_free;		/* FREE runs its callback */
	struct completion torn_down;	/* callback finished */
	void (*free_callback)(void *data);
	void *data;
	struct list_head dmas;		/* struct sim_dma */
	struct nvidia_p2p_page **pages;
	struct nvidia_p2p_page *page_store;
	u8 uuid[16];
	struct work_struct work;
	u64 va;
};

struct sim_dma {
	struct nvidia_p2p_dma_mapping m;
	struct list_head node;		/* sim_table.dmas */
	struct sim_table *t;
	struct pci_dev *peer;
};

/* A dma-buf over part of an allocation; freed by the buffer's release. */
struct sim_export {
	struct list_head node;		/* sim_exports */
	struct dma_buf *dmabuf;
	struct sim_alloc *alloc;	/* sim_lock; NULL once revoked */
	u64 va;
	u64 len;
	unsigned int maps;		/* sim_lock: live mappings */
	unsigned int pins;		/* sim_lock: live pins */
};

static DEFINE_MUTEX(sim_lock);
static struct workqueue_struct *sim_wq;
static LIST_HEAD(sim_allocs);
static LIST_HEAD(sim_tables);
static LIST_HEAD(sim_exports);
static u64 sim_next_va = SIM_VA_BASE;
static struct nvp2p_sim_fault sim_fault;	/* sim_lock */
static struct nvp2p_sim_stats sim_stats;	/* sim_lock */

#define sim_violation(fmt, ...) do {				\
	pr_err("client violation: " fmt "\n", ##__VA_ARGS__);	\
	sim_stats.violations++;					\
} while (0)

static void sim_table_release(struct kref *ref)
{
	struct sim_table *t = container_of(ref, struct sim_table, ref);

	kfree(t->pages);
	kfree(t->page_store);
	kfree(t);
}

/* Find the table behind a client pointer, without dereferencing it. */
static struct sim_table *sim_find_table(struct nvidia_p2p_page_table *pt)
{
	struct sim_table *t;

	lockdep_assert_held(&sim_lock);
	list_for_each_entry(t, &sim_tables, node)
		if (&t->pt == pt)
			return t;
	return NULL;
}

static struct sim_alloc *sim_find_alloc(u64 va, u64 len)
{
	struct sim_alloc *a;

	lockdep_assert_held(&sim_lock);
	list_for_each_entry(a, &sim_allocs, node)
		if (va >= a->va && len <= a->len && va - a->va <= a->len - len)
			return a;
	return NULL;
}

static phys_addr_t sim_phys(struct sim_alloc *a, u64 off)
{
	return page_to_phys(a->chunks[off / SIM_CHUNK_SIZE]) +
	       off % SIM_CHUNK_SIZE;
}

/*
 * One 64 KiB chunk that does not start where chunk @prev ends. GPU memory
 * promises no contiguity between its 64 KiB pages, and tests build on that
 * (a dma-buf export at an unaligned offset gets a PAGE_SIZE table); the
 * buddy allocator may hand out neighbours, so a neighbour is held back
 * (freed once another chunk was found) instead of being used.
 */
static struct page *sim_alloc_chunk(struct page *prev)
{
	struct page *held[8], *p;
	unsigned int n = 0;

	p = alloc_pages(GFP_KERNEL | __GFP_ZERO, SIM_CHUNK_ORDER);
	while (p && prev &&
	       page_to_pfn(p) == page_to_pfn(prev) + (1UL << SIM_CHUNK_ORDER)) {
		if (n == ARRAY_SIZE(held)) {
			__free_pages(p, SIM_CHUNK_ORDER);
			p = NULL;
			break;
		}
		held[n++] = p;
		p = alloc_pages(GFP_KERNEL | __GFP_ZERO, SIM_CHUNK_ORDER);
	}
	while (n > 0)
		__free_pages(held[--n], SIM_CHUNK_ORDER);
	return p;
}

static void sim_free_chunks(struct sim_alloc *a)
{
	unsigned int i;

	for (i = 0; i < a->nchunks; i++)
		if (a->chunks[i])
			__free_pages(a->chunks[i], SIM_CHUNK_ORDER);
	kfree(a->chunks);
	kfree(a);
}

/* Free the table once nobody uses it. Caller holds sim_lock. */
static void sim_unlink_table(struct sim_table *t)
{
	struct sim_dma *d, *tmp;

	lockdep_assert_held(&sim_lock);
	list_for_each_entry_safe(d, tmp, &t->dmas, node) {
		list_del(&d->node);
		kfree(d->m.dma_addresses);
		kfree(d);
		sim_stats.dmas_live--;
	}
	if (t->persistent)
		t->alloc->persistent_users--;
	list_del_init(&t->node);
	sim_stats.tables_live--;
	kref_put(&t->ref, sim_table_release);
}

/*
 * Run the client's free callback of @t, which the caller unregistered
 * (registered = false, in_callback = true) under sim_lock. Runs without
 * sim_lock, like the real driver's teardown path.
 */
static void sim_run_callback(struct sim_table *t)
{
	u32 delay;

	mutex_lock(&sim_lock);
	delay = sim_fault.cb_delay_us;
	mutex_unlock(&sim_lock);
	if (delay)
		usleep_range(delay, delay + 10);

	t->free_callback(t->data);

	mutex_lock(&sim_lock);
	sim_stats.callbacks++;
	t->in_callback = false;
	if (!t->client_freed)
		sim_violation("callback returned without nvidia_p2p_free_page_table");
	if (!list_empty(&t->dmas))
		sim_violation("callback left dma mappings");
	complete_all(&t->torn_down);
	sim_unlink_table(t);
	mutex_unlock(&sim_lock);
}

static void sim_callback_work(struct work_struct *work)
{
	struct sim_table *t = container_of(work, struct sim_table, work);

	sim_run_callback(t);
	kref_put(&t->ref, sim_table_release);	/* the worker's reference */
}

static int sim_get_pages(u64 va, u64 len, struct nvidia_p2p_page_table **ptp,
			 void (*cb)(void *data), void *data, bool persistent)
{
	u32 psize, i, entries;
	struct sim_alloc *a;
	struct sim_table *t;
	int ret;

	if (!ptp || !len || (va | len) & (SIM_CHUNK_SIZE - 1))
		return -EINVAL;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;

	mutex_lock(&sim_lock);
	if (sim_fault.fail_count) {
		sim_fault.fail_count--;
		ret = sim_fault.get_pages_err ? sim_fault.get_pages_err : -EIO;
		goto err;
	}
	a = sim_find_alloc(va, len);
	if (!a) {
		ret = -EINVAL;
		goto err;
	}
	psize = sim_fault.page_4k ? PAGE_SIZE : SIM_CHUNK_SIZE;
	entries = len / psize;
	t->pages = kcalloc(entries, sizeof(*t->pages), GFP_KERNEL);
	t->page_store = kcalloc(entries, sizeof(*t->page_store), GFP_KERNEL);
	if (!t->pages || !t->page_store) {
		ret = -ENOMEM;
		goto err;
	}
	for (i = 0; i < entries; i++) {
		t->page_store[i].physical_address =
			sim_phys(a, va - a->va + (u64)i * psize);
		t->pages[i] = &t->page_store[i];
	}
	kref_init(&t->ref);
	INIT_LIST_HEAD(&t->dmas);
	init_completion(&t->torn_down);
	t->alloc = a;
	t->va = va;
	t->persistent = persistent;
	t->registered = !persistent;
	t->free_callback = cb;
	t->data = data;
	memset(t->uuid, 0x5a, sizeof(t->uuid));
	t->pt.version = sim_fault.bad_version ? 0x00990000 :
			NVIDIA_P2P_PAGE_TABLE_VERSION;
	t->pt.page_size = sim_fault.page_4k ? NVIDIA_P2P_PAGE_SIZE_4KB :
			  NVIDIA_P2P_PAGE_SIZE_64KB;
	t->pt.pages = t->pages;
	t->pt.entries = entries;
	t->pt.gpu_uuid = t->uuid;
	if (persistent)
		a->persistent_users++;
	list_add_tail(&t->node, &sim_tables);
	sim_stats.tables_live++;
	sim_stats.get_pages++;
	*ptp = &t->pt;
	mutex_unlock(&sim_lock);
	return 0;
err:
	mutex_unlock(&sim_lock);
	kfree(t->pages);
	kfree(t->page_store);
	kfree(t);
	return ret;
}

int nvidia_p2p_get_pages(uint64_t p2p_token, uint32_t va_space_token,
			 uint64_t virtual_address, uint64_t length,
			 struct nvidia_p2p_page_table **page_table,
			 void (*free_callback)(void *data), void *data)
{
	/* Guide, "Changes in CUDA 12.2": NULL callbacks are refused. */
	if (!free_callback || p2p_token || va_space_token)
		return -EINVAL;
	return sim_get_pages(virtual_address, length, page_table,
			     free_callback, data, false);
}
EXPORT_SYMBOL(nvidia_p2p_get_pages);

int nvidia_p2p_get_pages_persistent(uint64_t virtual_address, uint64_t length,
				    struct nvidia_p2p_page_table **page_table,
				    uint32_t flags)
{
	if (flags)
		return -EINVAL;
	return sim_get_pages(virtual_address, length, page_table, NULL, NULL,
			     true);
}
EXPORT_SYMBOL(nvidia_p2p_get_pages_persistent);

int nvidia_p2p_put_pages(uint64_t p2p_token, uint32_t va_space_token,
			 uint64_t virtual_address,
			 struct nvidia_p2p_page_table *page_table)
{
	struct sim_table *t;

	mutex_lock(&sim_lock);
	sim_stats.put_pages++;
	t = sim_find_table(page_table);
	if (!t) {
		/* Torn down by the GPU side already: not an error. */
		mutex_unlock(&sim_lock);
		return 0;
	}
	if (t->persistent || t->va != virtual_address) {
		sim_violation("put_pages on a persistent table or wrong va");
		mutex_unlock(&sim_lock);
		return -EINVAL;
	}
	if (t->registered && sim_fault.race_put) {
		/* The GPU side wins the race: callback on another thread. */
		t->registered = false;
		t->in_callback = true;
		kref_get(&t->ref);	/* the worker's */
		INIT_WORK(&t->work, sim_callback_work);
		queue_work(sim_wq, &t->work);
	}
	if (!t->registered) {
		/* Teardown in flight: wait for it, as the real driver does. */
		kref_get(&t->ref);
		mutex_unlock(&sim_lock);
		wait_for_completion(&t->torn_down);
		kref_put(&t->ref, sim_table_release);
		return 0;
	}
	t->registered = false;
	sim_unlink_table(t);
	mutex_unlock(&sim_lock);
	return 0;
}
EXPORT_SYMBOL(nvidia_p2p_put_pages);

int nvidia_p2p_put_pages_persistent(uint64_t virtual_address,
				    struct nvidia_p2p_page_table *page_table,
				    uint32_t flags)
{
	struct sim_alloc *a;
	struct sim_table *t;
	int ret = 0;

	if (flags)
		return -EINVAL;
	mutex_lock(&sim_lock);
	sim_stats.put_pages++;
	t = sim_find_table(page_table);
	if (!t || !t->persistent) {
		sim_violation("put_pages_persistent on an unknown table");
		ret = -EINVAL;
	} else {
		a = t->alloc;
		sim_unlink_table(t);
		if (!a->owner && !a->persistent_users) {
			/* Its control file is gone: free it now. */
			list_del(&a->node);
			sim_stats.allocs_live--;
			sim_free_chunks(a);
		}
	}
	mutex_unlock(&sim_lock);
	return ret;
}
EXPORT_SYMBOL(nvidia_p2p_put_pages_persistent);

int nvidia_p2p_free_page_table(struct nvidia_p2p_page_table *page_table)
{
	struct sim_table *t;
	int ret = 0;

	mutex_lock(&sim_lock);
	t = sim_find_table(page_table);
	if (!t || !t->in_callback || t->client_freed) {
		sim_violation("free_page_table outside its free callback");
		ret = -EINVAL;
	} else {
		t->client_freed = true;
		/* Any later use of the table by the client now oopses. */
		t->pt.pages = NULL;
		t->pt.entries = 0;
	}
	mutex_unlock(&sim_lock);
	return ret;
}
EXPORT_SYMBOL(nvidia_p2p_free_page_table);

int nvidia_p2p_dma_map_pages(struct pci_dev *peer,
			     struct nvidia_p2p_page_table *page_table,
			     struct nvidia_p2p_dma_mapping **dma_mapping)
{
	struct sim_table *t;
	struct sim_dma *d;
	u32 i;
	int ret = 0;

	if (!peer || !page_table || !dma_mapping)
		return -EINVAL;
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;

	mutex_lock(&sim_lock);
	t = sim_find_table(page_table);
	if (!t || t->client_freed || t->in_callback) {
		sim_violation("dma_map_pages on a dead table");
		ret = -EINVAL;
		goto out;
	}
	if (t->pt.page_size == NVIDIA_P2P_PAGE_SIZE_4KB) {
		/* The real driver BUG()s here. */
		sim_violation("dma_map_pages on a 4 KiB page table");
		ret = -EINVAL;
		goto out;
	}
	d->m.dma_addresses = kcalloc(t->pt.entries, sizeof(u64), GFP_KERNEL);
	if (!d->m.dma_addresses) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < t->pt.entries; i++)
		d->m.dma_addresses[i] = t->pages[i]->physical_address +
					NVP2P_SIM_DMA_BIAS;
	d->m.version = NVIDIA_P2P_DMA_MAPPING_VERSION;
	d->m.page_size_type = t->pt.page_size;
	d->m.entries = t->pt.entries;
	d->t = t;
	d->peer = peer;
	list_add_tail(&d->node, &t->dmas);
	sim_stats.dmas_live++;
	sim_stats.dma_maps++;
	*dma_mapping = &d->m;
	d = NULL;
out:
	mutex_unlock(&sim_lock);
	kfree(d);
	return ret;
}
EXPORT_SYMBOL(nvidia_p2p_dma_map_pages);

/* Caller holds sim_lock. */
static struct sim_dma *sim_find_dma(struct nvidia_p2p_dma_mapping *m)
{
	struct sim_table *t;
	struct sim_dma *d;

	list_for_each_entry(t, &sim_tables, node)
		list_for_each_entry(d, &t->dmas, node)
			if (&d->m == m)
				return d;
	return NULL;
}

static void sim_free_dma(struct sim_dma *d)
{
	list_del(&d->node);
	kfree(d->m.dma_addresses);
	kfree(d);
	sim_stats.dmas_live--;
}

int nvidia_p2p_dma_unmap_pages(struct pci_dev *peer,
			       struct nvidia_p2p_page_table *page_table,
			       struct nvidia_p2p_dma_mapping *dma_mapping)
{
	struct sim_dma *d;
	int ret = 0;

	mutex_lock(&sim_lock);
	d = sim_find_dma(dma_mapping);
	if (!d) {
		/* Already gone with its table: like the real driver, fine. */
	} else if (d->t->in_callback) {
		sim_violation("dma_unmap_pages from the free callback");
		ret = -EINVAL;
	} else if (&d->t->pt != page_table || d->peer != peer) {
		sim_violation("dma_unmap_pages with the wrong table or peer");
		ret = -EINVAL;
	} else {
		sim_free_dma(d);
	}
	mutex_unlock(&sim_lock);
	return ret;
}
EXPORT_SYMBOL(nvidia_p2p_dma_unmap_pages);

int nvidia_p2p_free_dma_mapping(struct nvidia_p2p_dma_mapping *dma_mapping)
{
	struct sim_dma *d;
	int ret = 0;

	mutex_lock(&sim_lock);
	d = sim_find_dma(dma_mapping);
	if (!d || !d->t->in_callback) {
		sim_violation("free_dma_mapping outside the free callback");
		ret = -EINVAL;
	} else {
		sim_free_dma(d);
	}
	mutex_unlock(&sim_lock);
	return ret;
}
EXPORT_SYMBOL(nvidia_p2p_free_dma_mapping);

static int sim_ioc_alloc(struct file *filp, void __user *uarg)
{
	struct nvp2p_sim_alloc arg;
	struct sim_alloc *a;
	unsigned int i;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	if (!arg.size || arg.size > SIM_MAX_ALLOC)
		return -EINVAL;
	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return -ENOMEM;
	a->len = ALIGN(arg.size, SIM_CHUNK_SIZE);
	a->nchunks = a->len / SIM_CHUNK_SIZE;
	a->chunks = kcalloc(a->nchunks, sizeof(*a->chunks), GFP_KERNEL);
	if (!a->chunks) {
		kfree(a);
		return -ENOMEM;
	}
	for (i = 0; i < a->nchunks; i++) {
		a->chunks[i] = sim_alloc_chunk(i ? a->chunks[i - 1] : NULL);
		if (!a->chunks[i]) {
			sim_free_chunks(a);
			return -ENOMEM;
		}
	}
	a->owner = filp;

	mutex_lock(&sim_lock);
	a->va = sim_next_va;
	/* Leave a hole so that two allocations are never contiguous. */
	sim_next_va += a->len + SIM_CHUNK_SIZE;
	list_add_tail(&a->node, &sim_allocs);
	sim_stats.allocs_live++;
	mutex_unlock(&sim_lock);

	arg.va = a->va;
	if (copy_to_user(uarg, &arg, sizeof(arg)))
		return -EFAULT;	/* freed when the control file closes */
	return 0;
}

/*
 * Fake cudaFree: every registered table of the allocation gets its free
 * callback, then the memory goes back to the page allocator. Refused
 * (-EBUSY) while persistent tables use it. Takes sim_lock.
 */
static int sim_free_alloc(struct sim_alloc *a, bool on_thread)
{
	struct sim_table *t, **run;
	struct dma_buf **revoke;
	struct sim_export *e;
	unsigned int n = 0, nr = 0, i;

	lockdep_assert_held(&sim_lock);
	if (a->persistent_users)
		return -EBUSY;
	run = kcalloc(sim_stats.tables_live + 1, sizeof(*run), GFP_KERNEL);
	revoke = kcalloc(sim_stats.exports_live + 1, sizeof(*revoke),
			 GFP_KERNEL);
	if (!run || !revoke) {
		kfree(run);
		kfree(revoke);
		return -ENOMEM;
	}
	/*
	 * Its dma-bufs: no new mapping from now on. A buffer whose last
	 * reference is going has no importer left to notify.
	 */
	list_for_each_entry(e, &sim_exports, node) {
		if (e->alloc != a)
			continue;
		e->alloc = NULL;
		if (get_file_rcu(e->dmabuf->file))
			revoke[nr++] = e->dmabuf;
	}
	list_for_each_entry(t, &sim_tables, node) {
		if (t->alloc != a)
			continue;
		if (t->registered) {
			/* Ours to tear down: run its callback below. */
			t->registered = false;
			t->in_callback = true;
			t->run_by_free = true;
		} else if (!t->in_callback) {
			continue;	/* persistent: refused above */
		}
		/* Otherwise a racing put_pages tears it down: wait for it. */
		kref_get(&t->ref);
		run[n++] = t;
	}
	list_del(&a->node);
	sim_stats.allocs_live--;
	mutex_unlock(&sim_lock);

	/* Revoke the dma-bufs, as the real driver does when memory goes. */
	for (i = 0; i < nr; i++) {
		e = revoke[i]->priv;
		dma_resv_lock(revoke[i]->resv, NULL);
		dma_buf_move_notify(revoke[i]);
		dma_resv_unlock(revoke[i]->resv);
		mutex_lock(&sim_lock);
		sim_stats.move_notifies++;
		if (e->maps)
			sim_violation("importer kept %u dma-buf mapping(s) after move_notify",
				      e->maps);
		mutex_unlock(&sim_lock);
		dma_buf_put(revoke[i]);
	}
	kfree(revoke);

	for (i = 0; i < n; i++) {
		t = run[i];
		if (!t->run_by_free) {
			wait_for_completion(&t->torn_down);
		} else if (on_thread) {
			kref_get(&t->ref);	/* ours, to wait */
			INIT_WORK(&t->work, sim_callback_work);
			queue_work(sim_wq, &t->work);
			wait_for_completion(&t->torn_down);
		} else {
			sim_run_callback(t);
		}
		kref_put(&t->ref, sim_table_release);
	}
	kfree(run);
	sim_free_chunks(a);
	mutex_lock(&sim_lock);
	return 0;
}

static int sim_ioc_free(void __user *uarg)
{
	struct nvp2p_sim_va arg;
	struct sim_alloc *a;
	int ret = -ENOENT;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	mutex_lock(&sim_lock);
	list_for_each_entry(a, &sim_allocs, node) {
		if (a->va == arg.va) {
			ret = sim_free_alloc(a, sim_fault.cb_thread);
			break;
		}
	}
	mutex_unlock(&sim_lock);
	return ret;
}

static int sim_ioc_word(void __user *uarg, bool write)
{
	struct nvp2p_sim_word w;
	struct sim_alloc *a;
	u64 *p;
	int ret = 0;

	if (copy_from_user(&w, uarg, sizeof(w)))
		return -EFAULT;
	if (w.va & 7)
		return -EINVAL;
	mutex_lock(&sim_lock);
	a = sim_find_alloc(w.va, 8);
	if (!a) {
		ret = -ENOENT;
	} else {
		p = page_address(a->chunks[(w.va - a->va) / SIM_CHUNK_SIZE]) +
		    (w.va - a->va) % SIM_CHUNK_SIZE;
		if (write)
			WRITE_ONCE(*p, w.value);
		else
			w.value = READ_ONCE(*p);
	}
	mutex_unlock(&sim_lock);
	if (!ret && !write && copy_to_user(uarg, &w, sizeof(w)))
		ret = -EFAULT;
	return ret;
}

/*
 * Map the exported range for the importer's device, one scatterlist entry
 * per 64 KiB chunk it touches. Called with dma_buf.resv held (dynamic
 * exporter); takes sim_lock.
 */
static struct sg_table *sim_dmabuf_map(struct dma_buf_attachment *at,
				       enum dma_data_direction dir)
{
	struct sim_export *e = at->dmabuf->priv;
	struct scatterlist *sg;
	struct sg_table *sgt;
	struct sim_alloc *a;
	u64 off, end, in, n;
	int ret, i;

	dma_resv_assert_held(at->dmabuf->resv);
	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	mutex_lock(&sim_lock);
	a = e->alloc;
	ret = !a ? -EIDRM : sim_fault.map_err;
	if (ret)
		goto err;
	off = e->va - a->va;
	end = off + e->len;
	n = (end - 1) / SIM_CHUNK_SIZE - off / SIM_CHUNK_SIZE + 1;
	ret = sg_alloc_table(sgt, n, GFP_KERNEL);
	if (ret)
		goto err;
	for_each_sgtable_sg(sgt, sg, i) {
		in = off % SIM_CHUNK_SIZE;
		sg_set_page(sg, nth_page(a->chunks[off / SIM_CHUNK_SIZE],
					 in >> PAGE_SHIFT),
			    min(SIM_CHUNK_SIZE - in, end - off), 0);
		off += sg->length;
	}
	ret = dma_map_sgtable(at->dev, sgt, dir, DMA_ATTR_SKIP_CPU_SYNC);
	if (ret) {
		sg_free_table(sgt);
		goto err;
	}
	e->maps++;
	sim_stats.dmabuf_maps_live++;
	sim_stats.dmabuf_maps++;
	mutex_unlock(&sim_lock);
	return sgt;
err:
	mutex_unlock(&sim_lock);
	kfree(sgt);
	return ERR_PTR(ret);
}

/* Called with dma_buf.resv held; takes sim_lock. */
static void sim_dmabuf_unmap(struct dma_buf_attachment *at,
			     struct sg_table *sgt, enum dma_data_direction dir)
{
	struct sim_export *e = at->dmabuf->priv;

	dma_unmap_sgtable(at->dev, sgt, dir, DMA_ATTR_SKIP_CPU_SYNC);
	sg_free_table(sgt);
	kfree(sgt);
	mutex_lock(&sim_lock);
	e->maps--;
	sim_stats.dmabuf_maps_live--;
	mutex_unlock(&sim_lock);
}

/*
 * Dynamic exporter: the memory never moves, pinning only counts (so tests
 * can see the importer pin and unpin). FREE revokes pinned buffers too, as
 * the real driver does. Called with dma_buf.resv held; takes sim_lock.
 */
static int sim_dmabuf_pin(struct dma_buf_attachment *at)
{
	struct sim_export *e = at->dmabuf->priv;

	dma_resv_assert_held(at->dmabuf->resv);
	mutex_lock(&sim_lock);
	e->pins++;
	sim_stats.dmabuf_pins_live++;
	sim_stats.dmabuf_pins++;
	mutex_unlock(&sim_lock);
	return 0;
}

static void sim_dmabuf_unpin(struct dma_buf_attachment *at)
{
	struct sim_export *e = at->dmabuf->priv;

	dma_resv_assert_held(at->dmabuf->resv);
	mutex_lock(&sim_lock);
	if (!e->pins) {
		sim_violation("dma-buf unpinned more often than pinned");
	} else {
		e->pins--;
		sim_stats.dmabuf_pins_live--;
	}
	mutex_unlock(&sim_lock);
}

/* Last reference to the buffer gone. Takes sim_lock. */
static void sim_dmabuf_release(struct dma_buf *dmabuf)
{
	struct sim_export *e = dmabuf->priv;

	mutex_lock(&sim_lock);
	if (e->maps)
		sim_violation("dma-buf released with %u mapping(s)", e->maps);
	if (e->pins)
		sim_violation("dma-buf released with %u pin(s)", e->pins);
	list_del(&e->node);
	sim_stats.exports_live--;
	mutex_unlock(&sim_lock);
	kfree(e);
}

static const struct dma_buf_ops sim_dmabuf_ops = {
	.pin = sim_dmabuf_pin,
	.unpin = sim_dmabuf_unpin,
	.map_dma_buf = sim_dmabuf_map,
	.unmap_dma_buf = sim_dmabuf_unmap,
	.release = sim_dmabuf_release,
};

/* Fake cuMemGetHandleForAddressRange(DMA_BUF_FD). Takes sim_lock. */
static int sim_ioc_export(void __user *uarg)
{
	DEFINE_DMA_BUF_EXPORT_INFO(info);
	struct nvp2p_sim_export arg;
	struct dma_buf *dmabuf;
	struct sim_export *e;
	int fd;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	if (arg.flags || !arg.len || !PAGE_ALIGNED(arg.va) ||
	    !PAGE_ALIGNED(arg.len))
		return -EINVAL;
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	mutex_lock(&sim_lock);
	e->alloc = sim_find_alloc(arg.va, arg.len);
	if (!e->alloc) {
		mutex_unlock(&sim_lock);
		kfree(e);
		return -ENOENT;
	}
	e->va = arg.va;
	e->len = arg.len;
	info.ops = &sim_dmabuf_ops;
	info.size = arg.len;
	info.flags = O_RDWR;
	info.priv = e;
	dmabuf = dma_buf_export(&info);
	if (IS_ERR(dmabuf)) {
		mutex_unlock(&sim_lock);
		kfree(e);
		return PTR_ERR(dmabuf);
	}
	e->dmabuf = dmabuf;
	list_add_tail(&e->node, &sim_exports);
	sim_stats.exports_live++;
	mutex_unlock(&sim_lock);

	fd = dma_buf_fd(dmabuf, O_CLOEXEC);
	if (fd < 0) {
		dma_buf_put(dmabuf);
		return fd;
	}
	arg.fd = fd;
	/* On -EFAULT the descriptor stays open until the caller exits. */
	return copy_to_user(uarg, &arg, sizeof(arg)) ? -EFAULT : 0;
}

static long sim_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	struct nvp2p_sim_fault f;
	struct nvp2p_sim_stats s;

	switch (cmd) {
	case NVP2P_SIM_IOC_ALLOC:
		return sim_ioc_alloc(filp, uarg);
	case NVP2P_SIM_IOC_FREE:
		return sim_ioc_free(uarg);
	case NVP2P_SIM_IOC_PEEK:
		return sim_ioc_word(uarg, false);
	case NVP2P_SIM_IOC_POKE:
		return sim_ioc_word(uarg, true);
	case NVP2P_SIM_IOC_FAULT:
		if (copy_from_user(&f, uarg, sizeof(f)))
			return -EFAULT;
		if (f.get_pages_err > 0 || f.get_pages_err < -4095 ||
		    f.map_err > 0 || f.map_err < -4095)
			return -EINVAL;
		mutex_lock(&sim_lock);
		sim_fault = f;
		mutex_unlock(&sim_lock);
		return 0;
	case NVP2P_SIM_IOC_EXPORT_DMABUF:
		return sim_ioc_export(uarg);
	case NVP2P_SIM_IOC_STATS:
		mutex_lock(&sim_lock);
		s = sim_stats;
		mutex_unlock(&sim_lock);
		return copy_to_user(uarg, &s, sizeof(s)) ? -EFAULT : 0;
	default:
		return -ENOTTY;
	}
}

/* Closing the control file frees its allocations, like a process exit. */
static int sim_release(struct inode *inode, struct file *filp)
{
	struct sim_alloc *a, *tmp;

	mutex_lock(&sim_lock);
restart:
	list_for_each_entry_safe(a, tmp, &sim_allocs, node) {
		if (a->owner != filp)
			continue;
		if (a->persistent_users) {
			/* Kept until the last persistent table is put. */
			a->owner = NULL;
			continue;
		}
		sim_free_alloc(a, false);	/* drops and retakes sim_lock */
		goto restart;
	}
	mutex_unlock(&sim_lock);
	return 0;
}

static const struct file_operations sim_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = sim_ioctl,
	.release = sim_release,
	.llseek = no_llseek,
};

static struct miscdevice sim_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "nvidia_p2p_sim",
	.fops = &sim_fops,
	.mode = 0600,
};

static int __init sim_init(void)
{
	int ret;

	sim_wq = alloc_workqueue("nvidia_p2p_sim", 0, 0);
	if (!sim_wq)
		return -ENOMEM;
	ret = misc_register(&sim_misc);
	if (ret) {
		destroy_workqueue(sim_wq);
		return ret;
	}
	pr_info("TEST-ONLY NV-P2P simulator loaded; not a GPU driver\n");
	return 0;
}

static void __exit sim_exit(void)
{
	struct sim_alloc *a, *tmp;

	misc_deregister(&sim_misc);
	destroy_workqueue(sim_wq);
	if (sim_stats.tables_live || sim_stats.dmas_live ||
	    sim_stats.dmabuf_maps_live)
		pr_err("leak: %llu page tables, %llu dma mappings, %llu dma-buf mappings outstanding\n",
		       sim_stats.tables_live, sim_stats.dmas_live,
		       sim_stats.dmabuf_maps_live);
	if (sim_stats.violations)
		pr_err("%llu client violations\n", sim_stats.violations);
	list_for_each_entry_safe(a, tmp, &sim_allocs, node) {
		list_del(&a->node);
		sim_free_chunks(a);
	}
}

module_init(sim_init);
module_exit(sim_exit);

MODULE_DESCRIPTION("TEST-ONLY simulator of the NVIDIA NV-P2P API over RAM pages");
MODULE_LICENSE("GPL");
/* Linux >= 6.13 takes a string literal (probed by Kbuild). */
#ifdef GPUDP_IMPORT_NS_STRING
MODULE_IMPORT_NS("DMA_BUF");
#else
MODULE_IMPORT_NS(DMA_BUF);
#endif
