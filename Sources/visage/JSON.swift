/// A JSON value that keeps object keys in the order they were written.
enum JSON: CustomStringConvertible {
  case object([(String, JSON)])
  case array([JSON])
  case string(String)
  case number(String)
  case bool(Bool)
  case null

  /// A float written in its shortest round-tripping form; NaN and infinities become null.
  static func float(_ value: Float) -> JSON { value.isFinite ? .number("\(value)") : .null }
  /// A double written in its shortest round-tripping form.
  static func double(_ value: Double) -> JSON { value.isFinite ? .number("\(value)") : .null }
  /// An integer.
  static func int(_ value: Int) -> JSON { .number("\(value)") }

  var description: String {
    switch self {
    case .object(let fields):
      "{" + fields.map { "\(JSON.string($0.0)): \($0.1)" }.joined(separator: ", ") + "}"
    case .array(let items): "[" + items.map(\.description).joined(separator: ", ") + "]"
    case .string(let s): JSON.quote(s)
    case .number(let n): n
    case .bool(let b): b ? "true" : "false"
    case .null: "null"
    }
  }

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
