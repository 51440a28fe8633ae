/// When each login of one worker is due under an open-loop load of `rate` logins a second
/// spread over `workers` workers: worker `w`'s `n`th login (from 1) is due at
/// `start + ((n - 1) * workers + w) / rate`, so together they start evenly spaced whatever the
/// answers' latency.
struct PacedSchedule: Sendable {
    let start: ContinuousClock.Instant
    let rate: Double
    let workers: Int
    let worker: Int

    /// The instant the `index`th login (from 1) of this worker is due.
    func start(of index: Int) -> ContinuousClock.Instant {
        let slot = Double((index - 1) * workers + worker)
        return start + .nanoseconds(Int64(slot / rate * 1e9))
    }
}
