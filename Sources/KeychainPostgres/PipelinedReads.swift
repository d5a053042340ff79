import Dispatch
import Foundation
import KeychainStorage
import Synchronization

/// Searches from every polling thread, answered together: one thread takes all the queued
/// `items(matching:completion:)` calls, sends their SELECTs in libpq's pipeline mode on a
/// connection of its own (one flush, one sync), and answers each through its completion.
///
/// While it waits for the database, more searches queue, and the next round trip carries them
/// all. A blocking read per request costs a round trip and two context switches on each side
/// per request (PostgreSQL's backend and the polling thread); here both are paid once a batch.
///
/// Freshness: a search is sent after it was queued, so it sees every write acknowledged
/// before it was asked (each SELECT takes its own snapshot, as READ COMMITTED does).
final class PipelinedReads: Sendable {
    typealias Completion = @Sendable (Result<[ItemRecord], StorageError>) -> Void

    private struct Pending {
        let filter: ItemFilter
        let completion: Completion
    }

    private struct State {
        var queue: [Pending] = []
        /// The thread is waiting on `wake` (set by it, under the lock, before it waits).
        var sleeping = false
        var started = false
        var closed = false
    }

    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)
    private let connect: @Sendable () throws(StorageError) -> PGConnection
    /// The most searches one round trip carries: their statements and results stay far below a
    /// loopback socket's buffers, so a blocking send can never wait for the server to be read.
    static let maxBatch = 64

    init(connect: @escaping @Sendable () throws(StorageError) -> PGConnection) {
        self.connect = connect
    }

    /// Queues a search; `completion` runs on the reads' thread (or at once, once closed).
    /// The thread starts with the first search, so a store used synchronously never has one.
    func submit(_ filter: ItemFilter, completion: @escaping Completion) {
        enum Action { case none, wake, start, refuse }
        let action = state.withLock { state -> Action in
            guard !state.closed else { return .refuse }
            state.queue.append(Pending(filter: filter, completion: completion))
            if !state.started {
                state.started = true
                return .start
            }
            guard state.sleeping else { return .none }
            state.sleeping = false
            return .wake
        }
        switch action {
        case .none: break
        case .wake: wake.signal()
        case .refuse: completion(.failure(.unavailable("store is closed")))
        case .start:
            let thread = Thread { [self] in run() }
            thread.name = "postgres-reads"
            thread.start()
        }
    }

    /// Answers what is queued with `unavailable`, stops the thread and waits for it.
    func close() {
        let (started, sleeping) = state.withLock { state in
            state.closed = true
            defer { state.sleeping = false }
            return (state.started, state.sleeping)
        }
        guard started else { return }
        if sleeping { wake.signal() }
        stopped.wait()
    }

    private func run() {
        var connection: PGConnection?
        var retry: [Pending] = []
        while true {
            let taken = state.withLock { state -> (batch: [Pending], closed: Bool) in
                if state.closed { return (retry + state.queue, true) }
                let room = Self.maxBatch - retry.count
                let batch = retry + state.queue.prefix(room)
                state.queue.removeFirst(min(room, state.queue.count))
                if batch.isEmpty { state.sleeping = true }
                return (batch, false)
            }
            retry = []
            if taken.closed {
                for pending in taken.batch { pending.completion(.failure(.unavailable("store is closed"))) }
                stopped.signal()
                return
            }
            if taken.batch.isEmpty {
                wake.wait()
                continue
            }
            retry = answer(taken.batch, connection: &connection)
        }
    }

    /// One round trip for `batch`; returns the searches the server skipped after a failed one,
    /// to be sent again first.
    private func answer(_ batch: [Pending], connection: inout PGConnection?) -> [Pending] {
        let results: [Result<PGResult, StorageError>?]
        do throws(StorageError) {
            let open: PGConnection
            if let connection { open = connection } else { open = try connect() }
            connection = open
            results = try open.pipeline(
                batch.map { pending in
                    let (shape, sql, parameters) = PostgresSession.select(pending.filter, count: false)
                    return .shape(shape, sql: sql, parameters)
                })
        } catch {
            // The connection failed (or could not be made): the next batch connects again.
            connection = nil
            for pending in batch { pending.completion(.failure(error)) }
            return []
        }
        var skipped: [Pending] = []
        for (pending, result) in zip(batch, results) {
            guard let result else {
                skipped.append(pending)
                continue
            }
            pending.completion(result.map(PostgresSession.items))
        }
        if let open = connection, !open.isHealthy { connection = nil }
        return skipped
    }
}
