/// Which task a route runs: `/v1/detect`, `/v1/landmark`, `/v1/analyze`, and `/v1/live`'s
/// `task` parameter.
public enum FaceTaskKind: String, CaseIterable, Sendable {
  case detect, landmark, analyze
}

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
  /// (`/v1/live`'s `task`).
  public init(kind: FaceTaskKind, query: [(name: String, value: String)], live: Bool = false, ignored: Set<String> = [])
    throws(RequestError)
  {
    self.kind = kind
    self.live = live
    let specs = OptionSpec.table(for: kind, live: live)
    var values: [String: String] = [:]
    for (name, value) in query where !ignored.contains(name) {
      guard let spec = specs[name] else {
        let hint =
          OptionSpec.commandLineOnly.contains(name)
          ? "`\(name)` is a command-line option the server does not take"
          : (OptionSpec.streamOnly.contains(name)
            ? "`\(name)` needs a stream: use /v1/live" : "unknown option `\(name)`")
        throw .badRequest("\(hint); /v1/\(kind.rawValue) takes \(specs.keys.sorted().joined(separator: ", "))")
      }
      guard values[name] == nil else { throw .badRequest("option `\(name)` is given twice") }
      values[name] = try spec.canonical(value, name: name)
    }
    self.values = values
  }

  /// One string per distinct request: the kind and its options in name order.
  public var cacheKey: String {
    kind.rawValue + (live ? "/live" : "") + "?"
      + values.keys.sorted().map { "\($0)=\(values[$0]!)" }.joined(separator: "&")
  }

  /// A flag's value (false when absent).
  public func flag(_ name: String) -> Bool { values[name] == "true" }
  /// A number's value, or `fallback` when absent.
  public func number(_ name: String, _ fallback: Float) -> Float { values[name].flatMap(Float.init) ?? fallback }
  /// A count's value, or `fallback` when absent.
  public func count(_ name: String, _ fallback: Int) -> Int { values[name].flatMap { Int($0) } ?? fallback }
  /// A choice's value, or `fallback` when absent.
  public func choice(_ name: String, _ fallback: String) -> String { values[name] ?? fallback }
}

/// What values an option takes.
struct OptionSpec {
  enum Kind {
    case flag
    /// A number in 0...1.
    case fraction
    /// An angle in degrees, strictly between 0 and 180.
    case fieldOfView
    /// A whole number in the range.
    case count(ClosedRange<Int>)
    case choice([String])
  }
  let kind: Kind

  static let flag = OptionSpec(kind: .flag)
  static let fraction = OptionSpec(kind: .fraction)

  /// The most faces a request may ask for: bounds a response's size.
  static let faceCounts = 1...1000

  /// Each route's options: `visage detect`, `landmark` and `analyze`'s, less those about
  /// files, threads, output and running modes, which the server decides.
  static func table(for kind: FaceTaskKind, live: Bool) -> [String: OptionSpec] {
    var table: [String: OptionSpec] = ["any-rotation": .flag, "ignore-exif": .flag]
    switch kind {
    case .detect:
      table["range"] = OptionSpec(kind: .choice(["short", "full", "all"]))
      table["min-detection-confidence"] = .fraction
      table["min-suppression-threshold"] = .fraction
      table["min-face-presence-confidence"] = .fraction
      if live { table["tracking"] = .flag }
    case .landmark:
      table["detector-range"] = OptionSpec(kind: .choice(["short", "full", "all"]))
      table["num-faces"] = OptionSpec(kind: .count(faceCounts))
      table["min-face-detection-confidence"] = .fraction
      table["min-face-presence-confidence"] = .fraction
      table["min-tracking-confidence"] = .fraction
      table["blendshapes"] = .flag
      table["transformation-matrices"] = .flag
      for name in ["head-pose", "metric-mesh", "iris-distance", "scores", "camera-from-exif"] { table[name] = .flag }
      table["camera-fov"] = OptionSpec(kind: .fieldOfView)
      table["smoothing"] = OptionSpec(kind: .choice(["every-face", "mediapipe", "off"]))
      if live { table["tracking"] = .flag }
    case .analyze:
      table["performance"] = OptionSpec(kind: .choice(["fast", "accurate"]))
      table["landmarks"] = .flag
      table["contours"] = .flag
      table["classification"] = .flag
      table["min-face-size"] = .fraction
      table["max-faces"] = OptionSpec(kind: .count(faceCounts))
      if live { table["tracking"] = .flag }
    }
    return table
  }

  /// The subcommands' options that name files, threads or output, refused by name.
  static let commandLineOnly: Set<String> = [
    "model", "threads", "running-mode", "fps", "output", "annotate", "paths-from", "input-format", "profile-search",
  ]
  /// Options that only a stream gives meaning to.
  static let streamOnly: Set<String> = ["tracking"]

  /// The value in canonical form, or a 400 naming the option.
  func canonical(_ value: String, name: String) throws(RequestError) -> String {
    switch kind {
    case .flag:
      // A bare `?blendshapes` is true, as the flag alone is on the command line.
      switch value.lowercased() {
      case "", "true": return "true"
      case "false": return "false"
      default: throw .badRequest("option `\(name)` takes true or false, got '\(value)'")
      }
    case .fraction:
      // Checked as a decimal before it becomes a Float, which would round 1.0000000000000002
      // down to 1; hexadecimal and a leading + are refused.
      guard let number = Self.decimal(value), (0...1).contains(number) else {
        throw .badRequest("option `\(name)` takes a number in 0...1, got '\(value)'")
      }
      return "\(Float(number))"
    case .fieldOfView:
      guard let number = Self.decimal(value), number > 0, number < 180, Float(number) > 0, Float(number) < 180 else {
        throw .badRequest("option `\(name)` takes degrees between 0 and 180 (exclusive), got '\(value)'")
      }
      return "\(Float(number))"
    case .count(let range):
      guard let number = Int(value), range.contains(number) else {
        throw .badRequest(
          "option `\(name)` takes a whole number in \(range.lowerBound)...\(range.upperBound), got '\(value)'")
      }
      return "\(number)"
    case .choice(let choices):
      guard choices.contains(value) else {
        throw .badRequest("option `\(name)` takes \(choices.joined(separator: ", ")), got '\(value)'")
      }
      return value
    }
  }

  /// A plain finite decimal (no hexadecimal, no leading +).
  private static func decimal(_ value: String) -> Double? {
    guard let number = Double(value), number.isFinite, !value.hasPrefix("+"),
      value.allSatisfy({ $0.isASCII && ($0.isNumber || ".eE+-".contains($0)) })
    else { return nil }
    return number
  }
}
