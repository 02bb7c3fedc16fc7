import Foundation
import VisageHosting

/// What a request asks of its task: the kind, and its options as the `visage` subcommand's
/// long options without the dashes (`?num-faces=4&blendshapes=true`), checked and written in
/// one canonical form, so that requests asking the same share a task (`cacheKey`).
public struct TaskRequest: Hashable, Sendable {
  public let kind: FaceTaskKind
  /// Whether the request is a live stream (`/v1/live`), which takes the stream-only options.
  public let live: Bool
  /// The options given, by name, in canonical form (`true`, `0.4`, `all`).
  public let values: [String: String]

  /// Reads and checks `query`; an unknown, repeated or out-of-range option is a 400 that
  /// names it. `ignored` names parameters that belong to the route rather than the task
  /// (`/v1/live`'s `task`). Names are percent-decoded here (`num%2Dfaces` is `num-faces`, as
  /// a form encoder may write it), since Hummingbird's query parameters decode only values.
  public init(kind: FaceTaskKind, query: [(name: String, value: String)], live: Bool = false, ignored: Set<String> = [])
    throws(RequestError)
  {
    self.kind = kind
    self.live = live
    let table = TaskOptions.table(for: kind)
    let taken = table.filter { live || !$0.streamOnly }
    var values: [String: String] = [:]
    for (encodedName, value) in query {
      let name = encodedName.removingPercentEncoding ?? encodedName
      guard !ignored.contains(name) else { continue }
      guard let option = taken.first(where: { $0.name == name }) else {
        let hint =
          TaskOptions.commandLineOnly.contains(name)
          ? "`\(name)` is a command-line option the server does not take"
          : (table.contains { $0.name == name }
            ? "`\(name)` needs a stream: use /v1/live" : "unknown option `\(name)`")
        let names = taken.map(\.name).sorted().joined(separator: ", ")
        throw .badRequest("\(hint); /v1/\(kind.rawValue) takes \(names)")
      }
      guard values[name] == nil else { throw .badRequest("option `\(name)` is given twice") }
      guard let canonical = option.canonical(value) else {
        throw .badRequest("option `\(name)` \(option.expectation), got '\(value)'")
      }
      values[name] = canonical
    }
    self.values = values
  }

  /// One string per distinct request: the kind and its options in name order.
  public var cacheKey: String {
    kind.rawValue + (live ? "/live" : "") + "?"
      + values.keys.sorted().map { "\($0)=\(values[$0]!)" }.joined(separator: "&")
  }

  /// A flag's value (false when absent).
  public func flag(_ name: String) -> Bool { value(name) == "true" }
  /// A number's value, or the table's default when absent (NaN for an option with none: use
  /// `optionalNumber` for those).
  public func number(_ name: String) -> Float { Float(value(name)) ?? .nan }
  /// A number's value, or the table's default when absent; nil for an option that is off
  /// unless given.
  public func optionalNumber(_ name: String) -> Float? { Float(value(name)) }
  /// A count's value, or the table's default when absent.
  public func count(_ name: String) -> Int { Int(value(name)) ?? 0 }
  /// A choice's value, or the table's default when absent.
  public func choice(_ name: String) -> String { value(name) }

  /// The option's value in canonical form, or its default (`TaskOptions`).
  private func value(_ name: String) -> String {
    values[name] ?? TaskOptions.option(name, of: kind).defaultValue ?? ""
  }
}
