#define _GNU_SOURCE
#include "CrashFrames.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

static int installed;

static void put(const char *text) {
    ssize_t ignored = write(STDERR_FILENO, text, strlen(text));
    (void)ignored;
}

static void put_hex(uintptr_t value) {
    char digits[2 + 2 * sizeof value + 1];
    char *end = digits + sizeof digits - 1;
    char *p = end;
    *p = 0;
    do {
        *--p = "0123456789abcdef"[value & 0xf];
        value >>= 4;
    } while (value != 0);
    *--p = 'x';
    *--p = '0';
    put(p);
}

static void put_decimal(int value) {
    char digits[16];
    char *p = digits + sizeof digits - 1;
    *p = 0;
    do {
        *--p = (char)('0' + value % 10);
        value /= 10;
    } while (value != 0);
    put(p);
}

static void report(int signal_number) {
    // A crash inside the dynamic loader's lock would hang backtrace() or dladdr(): the process
    // is then ended by SIGALRM, never left hanging.
    alarm(10);
    void *frames[128];
    int count = backtrace(frames, 128);
    put("\n*** crash frames: signal ");
    put_decimal(signal_number);
    put(", the crashing thread's frames:\n");
    for (int n = 0; n < count; n++) {
        Dl_info info;
        put("frame ");
        put_decimal(n);
        put(": ");
        if (dladdr(frames[n], &info) != 0 && info.dli_fname != NULL) {
            put(info.dli_fname);
            put(" +");
            // A return address: the call is the byte before it (frame 0 is the faulting one).
            put_hex((uintptr_t)frames[n] - (uintptr_t)info.dli_fbase - (n > 0 ? 1 : 0));
        } else {
            put("? ");
            put_hex((uintptr_t)frames[n]);
        }
        put("\n");
    }
    put("*** end of crash frames\n");
    // Then what would have happened without this handler (SA_RESETHAND restored the default).
    raise(signal_number);
}

__attribute__((constructor)) static void install(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = report;
    action.sa_flags = (int)SA_RESETHAND | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    const int signals[] = {SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP};
    for (unsigned n = 0; n < sizeof signals / sizeof signals[0]; n++) {
        if (sigaction(signals[n], &action, NULL) == 0) installed++;
    }
    // backtrace() loads libgcc_s on its first call: done now, not inside a crashing process.
    void *warm[1];
    (void)backtrace(warm, 1);
}

int crash_frames_installed(void) { return installed; }
