#if canImport(Glibc)
    public import Glibc
#elseif canImport(Musl)
    public import Musl
#elseif canImport(Darwin)
    public import Darwin
#endif

/// A lock that puts a waiter to sleep at once (a plain `pthread_mutex_t`).
///
/// `Synchronization.Mutex` spins before it sleeps. Where many threads share one core and take
/// the same lock often (every request logs a line; every durable write is handed to a worker),
/// the spinner holds the core the owner needs to finish (docs/performance.md#sleeping-lock).
///
/// `@unchecked Sendable`: `value` is only touched between lock and unlock.
///
/// `withLock` is `@inlinable`, so that each caller's module specializes it for its value and
/// result: unspecialized, every call went through generic metadata and an indirect result.
public final class SleepingLock<Value>: @unchecked Sendable {
    @usableFromInline let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    @usableFromInline var value: Value

    public init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inlinable
    public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
