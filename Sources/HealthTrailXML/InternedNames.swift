/// Maps the names of one parser (`SAXName`) to values: element and attribute kinds.
///
/// libxml2 interns names, so after the first sighting a name is recognised by its address
/// instead of its text. The addresses are kept in a small hash table (open addressing, at most
/// half full), so that a name is found in one or two probes whatever the vocabulary's size: a
/// linear scan of every name seen was the hottest loop of the parsing thread. A vocabulary
/// larger than `capacity` still works: its extra names are classified by text each time.
///
/// Inlinable, so that the decoders get `lookup` specialised for their `Value`.
@safe
@usableFromInline package final class InternedNames<Value> {
    /// Names kept at most; the table has twice as many slots, so an empty one always ends a probe.
    @usableFromInline let capacity = 64
    @usableFromInline static var slotCount: Int { 128 }
    @usableFromInline var count = 0
    // SAFETY: both hold `slotCount` slots from init to deinit; `names[i]` is nil or the address
    // of a name of the parser this table serves, and `values[i]` is initialised exactly when
    // `names[i]` is not nil. The table serves one parser and one thread.
    @usableFromInline let names: UnsafeMutablePointer<UInt?>
    @usableFromInline let values: UnsafeMutablePointer<Value>
    @usableFromInline let classify: (SAXName) -> Value

    /// - Parameter classify: the value of a name seen for the first time.
    @inlinable package init(_ classify: @escaping (SAXName) -> Value) {
        unsafe self.classify = classify
        unsafe names = .allocate(capacity: Self.slotCount)
        unsafe names.initialize(repeating: nil, count: Self.slotCount)
        unsafe values = .allocate(capacity: Self.slotCount)
    }

    deinit {
        for i in 0..<Self.slotCount where unsafe names[i] != nil { unsafe (values + i).deinitialize(count: 1) }
        unsafe values.deallocate()
        unsafe names.deallocate()
    }

    /// The first slot to probe for an address: its top 7 bits times 2^64 / φ (Fibonacci hashing
    /// spreads aligned addresses evenly).
    @inlinable @inline(__always)
    static func home(_ address: UInt) -> Int {
        Int(truncatingIfNeeded: (UInt64(address) &* 0x9E37_79B9_7F4A_7C15) >> 57)
    }

    /// The value of `name`.
    @inlinable @inline(__always)
    package func lookup(_ name: SAXName) -> Value {
        let address = unsafe name.address
        var i = Self.home(address)
        // SAFETY: i stays in 0..<slotCount (masked), and at most `capacity`, half the slots, are
        // ever filled, so the probe meets an empty slot and ends.
        while let known = unsafe names[i] {
            if known == address { return unsafe values[i] }
            i = (i &+ 1) & (Self.slotCount &- 1)
        }
        return unsafe firstSighting(name, slot: i)
    }

    /// The value of a name not in the table, kept in the empty slot `i` its probe ended at while
    /// there is room. Not inlined: `count`, which other modules' inlined code may reach, is
    /// checked for exclusive access at run time, and inlined, that check would be made before
    /// every lookup of a loop, found or not.
    @inlinable @inline(never)
    func firstSighting(_ name: SAXName, slot i: Int) -> Value {
        let value = unsafe classify(name)
        if count < capacity {
            // SAFETY: `i` is an empty slot in 0..<slotCount, where `lookup`'s probe ended.
            unsafe names[i] = name.address
            unsafe (values + i).initialize(to: value)
            count += 1
        }
        return value
    }
}
