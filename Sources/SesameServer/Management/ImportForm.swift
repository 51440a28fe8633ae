import SesameCore

/// An import's form as its parts arrive: the `users` file streamed into an upload, the other
/// fields as short text. A field given twice keeps its first value.
struct ImportForm {
    /// The longest text field (connection ids and external ids are far shorter).
    static let maxFieldSize = 1024

    private(set) var upload: UsersUpload?
    private(set) var fields: [String: String] = [:]
    private let expectedSize: Int?
    /// The part being read; nil while skipping a repeated one.
    private var current: String?
    private var text: [UInt8] = []

    init(expectedSize: Int?) {
        self.expectedSize = expectedSize
    }

    /// Takes the next event of the body.
    /// - Throws: 400 for an unknown field or a text field over ``maxFieldSize``; the upload's
    ///   refusals for the file.
    mutating func take(_ event: MultipartReader.Event) throws {
        switch event {
        case .part(let name, _):
            guard JobsRoutes.importFields.contains(name) else { throw SesameError.invalidRequest("Unknown field \(name).") }
            let repeated = name == "users" ? upload != nil : fields[name] != nil
            (current, text) = (repeated ? nil : name, [])
            if current == "users" {
                upload = UsersUpload(expectedSize: expectedSize)
            } else if let current {
                fields[current] = ""
            }
        case .bytes(let bytes):
            guard let current else { return }
            guard current != "users" else {
                try upload?.append(bytes)
                return
            }
            guard text.count + bytes.count <= Self.maxFieldSize else {
                throw SesameError.invalidRequest("\(current) is over \(Self.maxFieldSize) bytes.")
            }
            text.append(contentsOf: bytes)
            fields[current] = String(decoding: text, as: UTF8.self)
        }
    }
}
