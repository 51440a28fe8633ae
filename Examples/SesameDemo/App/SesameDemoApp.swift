import SesameDemo
import SwiftUI

/// The sample app: add this folder to an Xcode iOS App target (README.md).
@main
struct SesameDemoApp: App {
    var body: some Scene {
        WindowGroup { DemoRootView() }
    }
}
