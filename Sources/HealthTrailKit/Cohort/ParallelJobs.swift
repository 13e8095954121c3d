import Foundation
import Synchronization

/// Runs `count` independent jobs on up to `jobs` threads; each thread takes the next job when it
/// finishes one, so a slow archive never holds up the others. Results come back in job order.
enum ParallelJobs {
    static func run<T>(count: Int, jobs: Int, _ work: @escaping @Sendable (Int) -> T) -> [T] {
        let slots = JobSlots<T>(count)
        let group = DispatchGroup()
        for _ in 0..<max(1, min(jobs, count)) {
            group.enter()
            Thread {
                while let i = slots.take() { slots.put(i, work(i)) }
                group.leave()
            }.start()
        }
        group.wait()
        return slots.results.map { $0! }
    }
}

/// The jobs not yet taken and the results so far.
///
/// `@unchecked Sendable`: `next` and `results` are read and written with `lock` held, and
/// `results` is read whole only after `group.wait()` has seen every thread leave.
private final class JobSlots<T>: @unchecked Sendable {
    let lock = NSLock()
    var next = 0
    var results: [T?]
    init(_ count: Int) { results = Array(repeating: nil, count: count) }
    func take() -> Int? {
        lock.lock(); defer { lock.unlock() }
        guard next < results.count else { return nil }
        next += 1
        return next - 1
    }
    func put(_ i: Int, _ value: T) { lock.lock(); results[i] = value; lock.unlock() }
}

/// `3/20`: how many of a cohort's persons are done, for the log.
final class ProgressCounter: Sendable {
    private let done = Mutex(0)
    let total: Int
    init(total: Int) { self.total = total }
    func next() -> String {
        let count = done.withLock { done in
            done += 1
            return done
        }
        return "\(count)/\(total)"
    }
}
