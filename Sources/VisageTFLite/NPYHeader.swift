import VisageRuntime

/// The header of a `.npy` file, a Python dict literal such as
/// `{'descr': '<f4', 'fortran_order': False, 'shape': (1, 128, 128, 3), }`, parsed strictly:
/// exactly the three keys NumPy writes, each once; `descr` a quoted string; `fortran_order`
/// `True` or `False`; `shape` a tuple of non-negative integers (`()`, `(3,)`, `(2, 3)`), with
/// commas between the items and a trailing one allowed (and needed for a single item, as in
/// Python). After the closing brace only the spaces and newline of NumPy's padding may follow.
struct NPYHeader {
  let descr: String
  let fortranOrder: Bool
  let shape: [Int]

  init(_ text: some Collection<UInt8>) throws(RuntimeError) {
    var parser = Parser(bytes: Array(text))
    var descr: String?
    var fortranOrder: Bool?
    var shape: [Int]?
    try parser.expect("{")
    while try !parser.consume("}") {
      let key = try parser.quoted()
      try parser.expect(":")
      switch key {
      case "descr" where descr == nil: descr = try parser.quoted()
      case "fortran_order" where fortranOrder == nil: fortranOrder = try parser.boolean()
      case "shape" where shape == nil: shape = try parser.tuple()
      default: throw Parser.failure("key '\(key)' is unknown or repeated")
      }
      // Items are separated by commas; the last may have one too.
      if try !parser.consume(",") {
        try parser.expect("}")
        break
      }
    }
    guard parser.atEndOfPadding else { throw Parser.failure("data after the closing brace") }
    guard let descr, let fortranOrder, let shape else {
      throw Parser.failure("it needs 'descr', 'fortran_order' and 'shape'")
    }
    self.descr = descr
    self.fortranOrder = fortranOrder
    self.shape = shape
  }
}

/// A cursor over the header's bytes; every method skips the spaces before what it reads.
private struct Parser {
  let bytes: [UInt8]
  var position = 0

  static func failure(_ what: String) -> RuntimeError { .invalidInput(".npy header is malformed: \(what)") }

  mutating func skipSpaces() { while position < bytes.count, bytes[position] == 0x20 { position += 1 } }

  /// Reads `character` if it comes next.
  mutating func consume(_ character: Character) throws(RuntimeError) -> Bool {
    skipSpaces()
    guard position < bytes.count else { throw Self.failure("it ends early") }
    guard bytes[position] == character.asciiValue! else { return false }
    position += 1
    return true
  }

  mutating func expect(_ character: Character) throws(RuntimeError) {
    guard try consume(character) else { throw Self.failure("expected '\(character)' at byte \(position)") }
  }

  /// A single-quoted string without escapes, as NumPy writes keys and dtypes.
  mutating func quoted() throws(RuntimeError) -> String {
    try expect("'")
    guard let end = bytes[position...].firstIndex(of: 0x27) else { throw Self.failure("a string is not closed") }
    defer { position = end + 1 }
    return String(decoding: bytes[position..<end], as: UTF8.self)
  }

  mutating func boolean() throws(RuntimeError) -> Bool {
    skipSpaces()
    for (word, value) in [("True", true), ("False", false)] where bytes[position...].starts(with: word.utf8) {
      position += word.utf8.count
      return value
    }
    throw Self.failure("expected True or False at byte \(position)")
  }

  /// A tuple of non-negative decimal integers.
  mutating func tuple() throws(RuntimeError) -> [Int] {
    try expect("(")
    var items: [Int] = []
    var trailingComma = false
    while try !consume(")") {
      let start = position
      while position < bytes.count, (0x30...0x39).contains(bytes[position]) { position += 1 }
      guard let item = Int(String(decoding: bytes[start..<position], as: UTF8.self)) else {
        throw Self.failure("the shape must be a tuple of non-negative integers")
      }
      items.append(item)
      trailingComma = try consume(",")
      if !trailingComma {
        try expect(")")
        break
      }
    }
    // `(3)` is the number 3 in Python, not a tuple.
    guard items.count != 1 || trailingComma else { throw Self.failure("a one-item shape needs its comma, as in (3,)") }
    return items
  }

  /// Whether only NumPy's padding, spaces and a newline, is left.
  var atEndOfPadding: Bool { bytes[position...].allSatisfy { $0 == 0x20 || $0 == 0x0A } }
}
