public import Foundation

/// ISO 8601 with milliseconds, the timestamp format of Auth0 profiles.
public enum ISO8601 {
    /// Formats `date` as `2016-12-05T15:15:40.545Z`.
    public static func string(_ date: Date) -> String {
        date.formatted(
            .iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: true)
                .timeSeparator(.colon).timeZone(separator: .omitted))
    }
}

extension ISO8601 {
    /// The instant `text` names: with or without fractional seconds, `Z` or an offset.
    public static func date(_ text: String) -> Date? {
        (try? Date(text, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true)))
            ?? (try? Date(text, strategy: .iso8601))
    }
}
