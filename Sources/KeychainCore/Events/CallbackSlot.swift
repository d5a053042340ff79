import Synchronization

/// A function set once and called from any thread. The function sits in a class of its own:
/// a closure kept directly in a `Mutex` and read with `withLock { $0 }` is wrapped in one more
/// reabstraction thunk at every read with this toolchain, until a call overflows the stack.
public final class CallbackSlot<Argument, Result>: Sendable {
    private final class Holder: Sendable {
        let body: @Sendable (Argument) -> Result
        init(_ body: @escaping @Sendable (Argument) -> Result) { self.body = body }
    }

    private let holder = Mutex<Holder?>(nil)

    public init() {}

    public func set(_ body: @escaping @Sendable (Argument) -> Result) {
        let held = Holder(body)
        holder.withLock { $0 = held }
    }

    /// What the function answers, or nil before `set`.
    public func callAsFunction(_ argument: Argument) -> Result? {
        holder.withLock { $0 }?.body(argument)
    }
}
