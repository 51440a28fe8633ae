import Testing

@testable import SesameStorageSQL

@Suite("The short read cache of applications and connections")
struct ReadCacheTests {
    @Test("a hit does not read again; absence is never cached; invalidation reads afresh")
    func hitsAndMisses() async throws {
        let cache = ReadCache<String>(lifetime: .seconds(60))
        var reads = 0
        #expect(
            try await cache.value(for: "a") {
                reads += 1; return nil
            } == nil)
        #expect(
            try await cache.value(for: "a") {
                reads += 1; return "one"
            } == "one")
        #expect(
            try await cache.value(for: "a") {
                reads += 1; return "two"
            } == "one")
        cache.invalidate("a")
        #expect(
            try await cache.value(for: "a") {
                reads += 1; return "three"
            } == "three")
        #expect(reads == 3)
    }

    /// A read that raced a write of this process must not put back what the write replaced.
    @Test("a read that began before an invalidation does not store its result")
    func staleReadIsNotStored() async throws {
        let cache = ReadCache<String>(lifetime: .seconds(60))
        let old = try await cache.value(for: "a") {
            cache.invalidate("a")  // the write commits while this read is under way
            return "old"
        }
        #expect(old == "old")
        #expect(try await cache.value(for: "a") { "new" } == "new")
    }

    @Test("an entry expires after its lifetime")
    func expiry() async throws {
        let cache = ReadCache<String>(lifetime: .zero)
        _ = try await cache.value(for: "a") { "one" }
        #expect(try await cache.value(for: "a") { "two" } == "two")
    }
}
