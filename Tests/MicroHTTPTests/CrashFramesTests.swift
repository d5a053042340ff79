import CrashFrames
import Testing

/// Tests/unit/run.sh relies on the test process reporting its crashing thread's frames.
struct CrashFramesTests {
    @Test func theHandlerIsInPlaceForEveryFatalSignal() {
        // SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP.
        #expect(crash_frames_installed() == 6)
    }
}
