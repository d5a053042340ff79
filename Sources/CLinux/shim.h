#ifndef KEYCHAIND_CLINUX_SHIM_H
#define KEYCHAIND_CLINUX_SHIM_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <malloc.h>
#include <sched.h>
#include <sys/prctl.h>

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

// Gives the pages of freed heap memory, in every arena, back to the system (glibc only; 1 when
// some were).
static inline int kcd_release_freed_memory(void) {
#ifdef __GLIBC__
    return malloc_trim(0);
#else
    return 0;
#endif
}
#endif
