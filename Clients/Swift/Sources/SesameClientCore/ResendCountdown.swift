public import Foundation

/// The arithmetic of "Resend in 0:27": when a code may be sent again, and how a screen
/// counts down to it.
public enum ResendCountdown {
    /// Whole seconds from `now` until `availableAt` (0 when there is none or it has passed),
    /// rounded up so the button never reads 0 while it is still disabled.
    public static func seconds(until availableAt: Date?, now: Date) -> Int {
        guard let availableAt else { return 0 }
        let left = availableAt.timeIntervalSince(now)
        return left > 0 ? Int(left.rounded(.up)) : 0
    }

    /// When a code sent at `sentAt` may be sent again: after `cooldown`, or when the server
    /// said this was the last send of its window (`remaining` 0), when the window resets.
    public static func availableAt(sentAt: Date, cooldown: TimeInterval, remaining: Int?, resetsAt: Date?) -> Date {
        let afterCooldown = sentAt.addingTimeInterval(cooldown)
        guard remaining == 0, let resetsAt else { return afterCooldown }
        return max(afterCooldown, resetsAt)
    }

    /// `seconds` as a clock: `0:27`, `1:05`, `61:00`.
    public static func clock(_ seconds: Int) -> String {
        let seconds = max(0, seconds)
        let rest = seconds % 60
        return "\(seconds / 60):\(rest < 10 ? "0" : "")\(rest)"
    }

    /// The resend button's title: `Resend code`, or `Resend in 0:27` while counting down.
    public static func buttonTitle(seconds: Int) -> String {
        seconds > 0 ? "Resend in \(clock(seconds))" : "Resend code"
    }
}
