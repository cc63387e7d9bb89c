/* SIGBUS on mapped inputs that shrink while they are read: see util/mapguard.h.
 * The table is written by the threads that open and close inputs and read by the signal
 * handler; each slot is claimed with a compare-and-swap on its state and published with a
 * release store, so the handler never sees a half-written slot.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "util/hbbp_err.h"
#include "util/mapguard.h"

#define MAPGUARD_SLOTS	64

enum { SLOT_FREE, SLOT_BUSY, SLOT_LIVE };

static struct {
	int state;
	uintptr_t base;
	size_t len;
	const char *name;
} slots[MAPGUARD_SLOTS];

static const char *guard_prog = "hbbp-convert";
static void (*guard_cleanup)(void);

int hbbp_mapguard__add(const void *base, size_t len, const char *name)
{
	int i;

	for (i = 0; i < MAPGUARD_SLOTS; i++) {
		int expect = SLOT_FREE;

		if (!__atomic_compare_exchange_n(&slots[i].state, &expect, SLOT_BUSY, false,
						 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			continue;
		slots[i].base = (uintptr_t)base;
		slots[i].len = len;
		slots[i].name = name;
		__atomic_store_n(&slots[i].state, SLOT_LIVE, __ATOMIC_RELEASE);
		return i;
	}
	return -1;
}

void hbbp_mapguard__remove(int slot)
{
	if (slot < 0 || slot >= MAPGUARD_SLOTS)
		return;
	__atomic_store_n(&slots[slot].state, SLOT_FREE, __ATOMIC_RELEASE);
}

static void put_hex(uint64_t v)
{
	char buf[19], *p = buf + sizeof(buf);

	*--p = '\0';
	do {
		*--p = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	*--p = 'x';
	*--p = '0';
	hbbp_sigsafe_puts(p);
}

static void on_sigbus(int sig, siginfo_t *si, void *uctx)
{
	uintptr_t a = (uintptr_t)si->si_addr;
	int i;

	if (guard_cleanup)
		guard_cleanup();
	hbbp_sigsafe_puts(guard_prog);
	hbbp_sigsafe_puts(": error: ");
	for (i = 0; i < MAPGUARD_SLOTS; i++) {
		if (__atomic_load_n(&slots[i].state, __ATOMIC_ACQUIRE) != SLOT_LIVE)
			continue;
		if (a - slots[i].base < slots[i].len) {
			hbbp_sigsafe_puts(slots[i].name);
			hbbp_sigsafe_puts(": the file shrank while it was being read (bus error at ");
			put_hex(a - slots[i].base);
			hbbp_sigsafe_puts(")\n");
			_exit(HBBP_EXIT_INPUT);
		}
	}
	hbbp_sigsafe_puts("a mapped file shrank while it was being read (bus error at ");
	put_hex(a);
	hbbp_sigsafe_puts(")\n");
	_exit(HBBP_EXIT_INPUT);
}

int hbbp_mapguard__install(const char *prog, void (*cleanup)(void))
{
	struct sigaction sa;

	if (prog)
		guard_prog = prog;
	guard_cleanup = cleanup;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO;
	sigfillset(&sa.sa_mask);
	return sigaction(SIGBUS, &sa, NULL) ? -errno : 0;
}
