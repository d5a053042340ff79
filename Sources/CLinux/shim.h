#ifndef KEYCHAIND_CLINUX_SHIM_H
#define KEYCHAIND_CLINUX_SHIM_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <malloc.h>
#include <stddef.h>
#include <sched.h>
#include <sys/prctl.h>

// A file without a name in `directory`, read and write, 0600 (O_TMPFILE needs _GNU_SOURCE, and
// open is variadic): -1 and errno when the file system cannot make one.
static inline int kcd_open_unnamed_file(const char *directory) {
    return open(directory, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
}

// prctl is variadic: Swift cannot call it directly.
static inline int kcd_set_not_dumpable(void) { return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }

// The number of CPUs in this process's affinity mask (CPU_COUNT is a macro), or 0 on failure.
static inline int kcd_usable_cpus(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) != 0) return 0;
    return CPU_COUNT(&set);
}

// The calling thread (pid 0 is the caller on Linux) as SCHED_BATCH: when woken it does not preempt
// the thread running on its core, and runs when that one blocks or its slice ends.
static inline int kcd_schedule_calling_thread_as_batch(void) {
    struct sched_param param = {.sched_priority = 0};
    return sched_setscheduler(0, SCHED_BATCH, &param);
}

// jemalloc's control interface, when the process links it (keychaind does); NULL otherwise.
extern int mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen) __attribute__((weak));

// Gives the pages of freed heap memory, in every arena, back to the system: jemalloc's arenas
// purged ("arena.4096.purge", MALLCTL_ARENAS_ALL) when it is the allocator, and glibc's
// malloc_trim for what glibc holds (1 when either gave some back).
static inline int kcd_release_freed_memory(void) {
    int released = 0;
    if (mallctl != NULL) released = mallctl("arena.4096.purge", NULL, NULL, NULL, 0) == 0;
#ifdef __GLIBC__
    released |= malloc_trim(0);
#endif
    return released;
}
#endif
