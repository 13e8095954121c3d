/// Where threads other than the one drawing progress report the bytes they have read: the
/// route decoders count each GPX file into the run's progress line through it.
package protocol BackgroundProgress: AnyObject {
    /// Counts `bytes` read on the calling thread; safe from any thread.
    func advanceInBackground(_ bytes: Int)
}
