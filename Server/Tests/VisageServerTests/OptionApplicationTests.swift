import Testing
import Visage
import VisageHosting
import VisageRequests

/// Every option of the one table (`TaskOptions`) reaches the task the server builds: given
/// a value other than its default, the options `ServedTask` makes differ from those it makes
/// with none. An option added to the table and forgotten in `ServedTask` would be accepted,
/// canonicalised and cached on, then ignored; this fails instead.
@Suite struct OptionApplicationTests {
  static let models = ServerModels(bundle: "bundle.task", fullRange: "full-range.tflite", sampleImage: "")

  /// Options the image decoding reads, not the task (RouteTests covers them).
  static let decodingOptions: Set<String> = ["ignore-exif"]

  /// A value the option takes that is not its default.
  static func otherValue(_ option: TaskOption) -> String {
    let value: String
    switch option.kind {
    case .flag: value = "true"
    case .fraction: value = option.defaultValue == "0.7" ? "0.2" : "0.7"
    case .degrees: value = option.defaultValue == "40" ? "50" : "40"
    case .count(let range):
      value = option.defaultValue == "\(range.lowerBound)" ? "\(range.lowerBound + 1)" : "\(range.lowerBound)"
    case .choice(let words): value = words.first { $0 != option.defaultValue } ?? ""
    }
    return option.canonical(value) ?? "not taken: \(value)"
  }

  /// The stored properties of `value`, and of the classes it holds, as text: what differs
  /// when any option the task reads differs.
  static func description(_ value: Any, depth: Int = 0) -> String {
    let mirror = Mirror(reflecting: value)
    guard mirror.displayStyle == .class || mirror.displayStyle == .struct, depth < 3, !mirror.children.isEmpty else {
      return String(describing: value)
    }
    let fields = mirror.children.map { "\($0.label ?? "_")=\(description($0.value, depth: depth + 1))" }
    return "{" + fields.joined(separator: ", ") + "}"
  }

  /// The options the server builds for a stream of `kind` (every option taken) from `query`.
  static func built(_ kind: FaceTaskKind, _ query: [(name: String, value: String)]) throws -> String {
    let request = try TaskRequest(kind: kind, query: query, live: true)
    switch kind {
    case .detect: return description(request.detectorOptions(models: models, handler: nil))
    case .landmark: return description(request.landmarkerOptions(models: models, handler: nil))
    case .analyze: return description(request.analyzerOptions(models: models, video: true))
    }
  }

  @Test(arguments: FaceTaskKind.allCases) func everyOptionReachesTheTask(_ kind: FaceTaskKind) throws {
    let plain = try Self.built(kind, [])
    let table = TaskOptions.table(for: kind).filter { !Self.decodingOptions.contains($0.name) }
    #expect(table.count >= 5)
    for option in table {
      let value = Self.otherValue(option)
      let given = try Self.built(kind, [(option.name, value)])
      #expect(given != plain, "/v1/\(kind.rawValue): `\(option.name)=\(value)` changes nothing the task reads")
    }
  }
}
