import Logging
import SesameCore

/// Builds the senders the configuration names.
struct DeliveryFactory {
    let configuration: ServerConfiguration
    let storage: any EventRepository
    let clock: any SesameClock
    let random: any RandomSource
    let logger: Logger

    func make() throws -> MessageDelivery {
        let console = ConsoleSender(
            storage: storage, clock: clock, random: random, keep: configuration.settings.outboxKeep, logger: logger)
        return MessageDelivery(email: console, sms: console)
    }
}
