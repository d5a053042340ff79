// Installed before any test runs (a constructor): when the test process dies of a signal, the
// crashing thread's frames are written to standard error, one "frame N: OBJECT +0xOFFSET" line
// each, which Tests/unit/summary.py symbolizes. Swift's own backtracer cannot unwind past
// libc's abort() on this platform (libc has no frame pointers), so a SIGABRT (a Swift
// exclusivity conflict, a heap check, a libmicrohttpd or libsodium panic) showed one frame.
// glibc's backtrace() unwinds with the unwind tables instead.

/// For how many signals the handler is installed (a test checks that it is in place).
int crash_frames_installed(void);
