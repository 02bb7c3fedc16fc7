import Foundation
import VisageHosting

/// What a request asks of its task: the kind, and its options as the `visage` subcommand's
/// long options without the dashes (`?num-faces=4&blendshapes=true`), checked and written in
/// one canonical form, so that requests asking the same share a task (`cacheKey`).
public struct TaskRequest: Hashable, Sendable {
  public let kind: FaceTaskKind
  /// Whether the request is a live stream (`/v1/live`), which takes the stream-only options.
  public let live: Bool
  /// The options given, by the table's names, in canonical form (`true`, `0.4`, `all`).
  public var values: [String: String] { settings.values }
  /// The options as VisageHosting's settings, which make the library's options.
  public let settings: TaskSettings

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
    var settings = TaskSettings(kind)
    for (encodedName, value) in query {
      let name = encodedName.removingPercentEncoding ?? encodedName
      guard !ignored.contains(name) else { continue }
      guard taken.contains(where: { $0.name == name }) else {
        let hint =
          TaskOptions.commandLineOnly.contains(name)
          ? "`\(name)` is a command-line option the server does not take"
          : (table.contains { $0.name == name }
            ? "`\(name)` needs a stream: use /v1/live" : "unknown option `\(name)`")
        let names = taken.map(\.name).sorted().joined(separator: ", ")
        throw .badRequest("\(hint); /v1/\(kind.rawValue) takes \(names)")
      }
      guard settings.values[name] == nil else { throw .badRequest("option `\(name)` is given twice") }
      do { try settings.set(name, value) } catch { throw .badRequest(error.message(in: .query)) }
    }
    self.settings = settings
  }

  /// One string per distinct request: the kind and its options in name order.
  public var cacheKey: String {
    kind.rawValue + (live ? "/live" : "") + "?"
      + values.keys.sorted().map { "\($0)=\(values[$0]!)" }.joined(separator: "&")
  }
}
