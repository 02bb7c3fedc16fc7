/// A JSON value that keeps object keys in the order they were written, and writes each number
/// as it was given: the writer under the command line's lines and visage-server's responses
/// (`JSONEncoder` neither keeps key order nor writes a non-finite float as null).
public enum JSONValue: Sendable, Equatable, CustomStringConvertible {
  case object([(String, JSONValue)])
  case array([JSONValue])
  case string(String)
  case number(String)
  case bool(Bool)
  case null

  /// A float written in its shortest round-tripping form; NaN and infinities become null.
  public static func float(_ value: Float) -> JSONValue { value.isFinite ? .number("\(value)") : .null }
  /// A double written in its shortest round-tripping form; NaN and infinities become null.
  public static func double(_ value: Double) -> JSONValue { value.isFinite ? .number("\(value)") : .null }
  /// An integer.
  public static func int(_ value: Int) -> JSONValue { .number("\(value)") }
  /// JSON text written exactly as given, as a number's is, which the caller has made valid:
  /// for a string holding escapes no Swift string can, such as a lone surrogate (`"\udce9"`).
  public static func verbatim(_ text: String) -> JSONValue { .number(text) }

  /// The value as JSON text on one line, with `", "` and `": "` between items.
  public var description: String {
    switch self {
    case .object(let fields):
      "{" + fields.map { "\(JSONValue.quote($0.0)): \($0.1)" }.joined(separator: ", ") + "}"
    case .array(let items): "[" + items.map(\.description).joined(separator: ", ") + "]"
    case .string(let s): JSONValue.quote(s)
    case .number(let n): n
    case .bool(let b): b ? "true" : "false"
    case .null: "null"
    }
  }

  public static func == (a: JSONValue, b: JSONValue) -> Bool { a.description == b.description }

  private static func quote(_ s: String) -> String {
    var out = "\""
    for scalar in s.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case _ where scalar.value < 0x20:
        out +=
          "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
          + String(scalar.value, radix: 16)
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out + "\""
  }
}
