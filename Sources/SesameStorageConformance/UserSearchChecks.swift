import Foundation
import SesameAPI
import SesameCore

enum UserSearchChecks {
    static let all = [
        ConformanceCheck(
            "users: search by text, exact email (any case) or phone, newest first, counted; LIKE wildcards match as typed"
        ) {
            store, clock in
            let now = clock.now()
            for (index, address) in ["ana@example.com", "bo_b@example.com", "boa@example.org", "100%@example.com"].enumerated() {
                try await store.createUser(Fixture.user(address, at: now.addingTimeInterval(Double(index))))
            }
            var phone = Fixture.user("+14155550123", at: now.addingTimeInterval(9))
            (phone.email, phone.phoneNumber) = (nil, "+14155550123")
            try await store.createUser(phone)
            let text = UserSearch(query: "bo", limit: 10, offset: 0)
            try await expect(
                try await store.searchUsers(text).compactMap(\.email) == ["boa@example.org", "bo_b@example.com"],
                "text in the address, newest first")
            try await expect(try await store.countUsers(text) == 2, "counted")
            let underscore = UserSearch(query: "o_b", limit: 10, offset: 0)
            try await expect(try await store.searchUsers(underscore).count == 1, "_ is a character, not a wildcard")
            let percent = UserSearch(query: "0%@", limit: 10, offset: 0)
            try await expect(try await store.searchUsers(percent).count == 1, "% is a character, not a wildcard")
            let exact = UserSearch(query: "email:\"ANA@example.com\"", limit: 10, offset: 0)
            try await expect(try await store.searchUsers(exact).compactMap(\.email) == ["ana@example.com"], "exact, any case")
            let byPhone = UserSearch(query: "phone_number:\"+14155550123\"", limit: 10, offset: 0)
            try await expect(try await store.searchUsers(byPhone).count == 1, "by phone")
            try await expect(
                try await store.searchUsers(UserSearch(query: "5550", limit: 10, offset: 0)).count == 1, "phone text")
            let page = UserSearch(query: nil, limit: 2, offset: 1)
            try await expect(try await store.searchUsers(page).count == 2, "a page of all")
            try await expect(try await store.countUsers(page) == 5, "all counted")
        },
        ConformanceCheck("users: metadata objects round-trip through update") { store, clock in
            let id = Fixture.user(at: clock.now()).id
            try await store.createUser(Fixture.user(id: id, at: clock.now()))
            _ = try await store.updateUser(id: id) { user in
                user.userMetadata = ["theme": .string("dark"), "n": .number(2)]
                user.appMetadata = ["roles": .array([.string("admin")])]
            }
            let read = try await store.user(id: id)
            try await expect(read?.userMetadata == ["theme": .string("dark"), "n": .number(2)], "user_metadata")
            try await expect(read?.appMetadata == ["roles": .array([.string("admin")])], "app_metadata")
        },
    ]
}
