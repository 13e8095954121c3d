/// A value in memory of its own, read and mutated in place through addressors: an access costs
/// a load, where the same value in a class's stored property costs a run-time exclusivity check
/// (`swift_beginAccess`/`swift_endAccess`) whenever the compiler cannot prove the access
/// free of conflicts, which is the case for any array or struct updated through a call.
///
/// For state that a hot loop updates once per item (a route's points, the day table, a run of
/// samples). SAFETY: every owner uses its box from one thread at a time and never starts a
/// second access to `value` while one is in progress (nothing reached from inside a mutation of
/// `value` touches the same box); those are the rules the run-time check would enforce.
///
/// Inlinable, so that its users in other targets get it specialised for their `Value` (a generic
/// class used across a module boundary is otherwise reached through unspecialised witnesses).
@unsafe
@usableFromInline package final class UncheckedBox<Value> {
    @usableFromInline let pointer: UnsafeMutablePointer<Value>

    @inlinable package init(_ value: Value) {
        unsafe pointer = .allocate(capacity: 1)
        unsafe pointer.initialize(to: value)
    }

    deinit {
        unsafe pointer.deinitialize(count: 1)
        unsafe pointer.deallocate()
    }

    @inlinable package var value: Value {
        // SAFETY: `pointer` is initialised from init to deinit; exclusivity as stated above.
        @inline(__always) unsafeAddress { unsafe UnsafePointer(pointer) }
        @inline(__always) unsafeMutableAddress { unsafe pointer }
    }
}
