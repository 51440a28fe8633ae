public import Foundation

/// ISO 8601 with milliseconds, the timestamp format of Auth0 profiles.
public enum ISO8601 {
    /// Formats `date` as `2016-12-05T15:15:40.545Z`.
    ///
    /// Every ID token with the profile scope carries one (`updated_at`), and Foundation's format
    /// style resolves its calendar, time zone and locale on each call (0.3 % of a device-key
    /// login), so dates from 1583 to 9999 are written here, as Foundation writes them (a test
    /// compares the two); others go through Foundation, whose calendar turns Julian before 1582.
    public static func string(_ date: Date) -> String {
        // The fraction from the stored seconds since 2001, as Foundation takes it: a product
        // with 1,000 first rounds differently at some instants.
        let sinceReference = date.timeIntervalSinceReferenceDate
        let seconds = sinceReference.rounded(.down)
        guard seconds >= firstFast, seconds < lastFast, let whole = Int64(exactly: seconds) else {
            return foundationString(date)
        }
        let milliseconds = Int64((sinceReference - seconds) * 1000)
        let (days, inDay) = floorDivision(whole + 978_307_200, 86_400)
        let (year, month, day) = civilDate(days: days)
        let fields: [(Int64, Int)] = [
            (year, 4), (month, 2), (day, 2), (inDay / 3600, 2), (inDay / 60 % 60, 2), (inDay % 60, 2), (milliseconds, 3),
        ]
        var text = ""
        text.reserveCapacity(24)
        for ((value, width), separator) in zip(fields, ["-", "-", "T", ":", ":", ".", "Z"]) {
            let digits = String(value)
            text += String(repeating: "0", count: max(0, width - digits.count)) + digits + separator
        }
        return text
    }

    /// 1583-01-01 and 10000-01-01 in seconds since 2001.
    private static let firstFast: Double = -12_212_553_600 - 978_307_200
    private static let lastFast: Double = 253_402_300_800 - 978_307_200

    static func foundationString(_ date: Date) -> String {
        date.formatted(
            .iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: true)
                .timeSeparator(.colon).timeZone(separator: .omitted))
    }

    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let remainder = value % divisor
        return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
    }

    /// The proleptic Gregorian date `days` after 1970-01-01 (H. Hinnant's `civil_from_days`).
    private static func civilDate(days: Int64) -> (Int64, Int64, Int64) {
        let shifted = days + 719_468
        let era = floorDivision(shifted, 146_097).0
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

extension ISO8601 {
    /// The instant `text` names: with or without fractional seconds, `Z` or an offset.
    public static func date(_ text: String) -> Date? {
        (try? Date(text, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true)))
            ?? (try? Date(text, strategy: .iso8601))
    }
}
