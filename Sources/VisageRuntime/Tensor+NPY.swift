/// Reading and writing NumPy `.npy` files (format versions 1 to 3), the exchange format of
/// `visage run` and of the reference fixtures.
extension Tensor {
  /// Decodes a little-endian float32 or float64 `.npy` file in C order.
  public init(npy bytes: [UInt8]) throws(RuntimeError) {
    let magic: [UInt8] = [0x93, 0x4E, 0x55, 0x4D, 0x50, 0x59]
    guard bytes.count >= 10, Array(bytes[0..<6]) == magic else {
      throw .invalidInput("not a .npy file (no \\x93NUMPY magic)")
    }
    let major = bytes[6]
    let headerStart = major == 1 ? 10 : 12
    guard major >= 1, major <= 3, bytes.count >= headerStart else {
      throw .invalidInput(".npy format version \(major) is not supported")
    }
    var headerLength = Int(bytes[8]) | Int(bytes[9]) << 8
    if major > 1 { headerLength |= Int(bytes[10]) << 16 | Int(bytes[11]) << 24 }
    guard headerLength <= bytes.count - headerStart else { throw .invalidInput(".npy header is truncated") }
    let header = String(decoding: bytes[headerStart..<(headerStart + headerLength)], as: UTF8.self)
    let descr = Self.field("descr", in: header)
    guard Self.field("fortran_order", in: header) == "False" else {
      throw .invalidInput(".npy data in Fortran order is not supported")
    }
    guard let shapeText = Self.field("shape", in: header) else { throw .invalidInput(".npy header has no shape") }
    var dims: [Int] = []
    for part in shapeText.split(whereSeparator: { "(), ".contains($0) }) {
      guard let d = Int(part), d >= 0 else { throw .invalidInput(".npy shape \(shapeText) is not a tuple of sizes") }
      dims.append(d)
    }
    let shape = Shape(dims)
    let width: Int
    switch descr {
    case "'<f4'": width = 4
    case "'<f8'": width = 8
    default: throw .invalidInput(".npy dtype \(descr ?? "?") is not supported; use little-endian float32 or float64")
    }
    let start = headerStart + headerLength
    guard let count = shape.checkedCount, count <= (bytes.count - start) / width else {
      throw .invalidInput(".npy data is shorter than its shape \(shape) needs")
    }
    var values = [Float](repeating: 0, count: count)
    for i in 0..<count {
      var raw: UInt64 = 0
      for b in 0..<width { raw |= UInt64(bytes[start + i * width + b]) << (8 * b) }
      values[i] = width == 4 ? Float(bitPattern: UInt32(raw)) : Float(Double(bitPattern: raw))
    }
    self.shape = shape
    self.values = values
  }

  /// Encodes the tensor as a version 1.0 float32 `.npy` file.
  public var npy: [UInt8] {
    let dims = shape.dimensions.map(String.init)
    let tuple = dims.count == 1 ? "(\(dims[0]),)" : "(" + dims.joined(separator: ", ") + ")"
    var header = "{'descr': '<f4', 'fortran_order': False, 'shape': \(tuple), }"
    // Pad with spaces so the data starts on a 64-byte boundary, ending the header with \n.
    while (10 + header.utf8.count + 1) % 64 != 0 { header += " " }
    header += "\n"
    var bytes: [UInt8] = [0x93, 0x4E, 0x55, 0x4D, 0x50, 0x59, 1, 0]
    bytes += [UInt8(header.utf8.count & 0xFF), UInt8(header.utf8.count >> 8)]
    bytes += Array(header.utf8)
    bytes.reserveCapacity(bytes.count + values.count * 4)
    for v in values {
      let bits = v.bitPattern
      bytes += [UInt8(bits & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits >> 16 & 0xFF), UInt8(bits >> 24)]
    }
    return bytes
  }

  /// The text after `'key':` in a .npy header dict, up to the next top-level comma.
  private static func field(_ key: String, in header: String) -> String? {
    guard let range = header.firstRange(of: "'\(key)':") else { return nil }
    var depth = 0
    var value = ""
    for ch in header[range.upperBound...] {
      if ch == "(" { depth += 1 }
      if ch == ")" { depth -= 1 }
      if (ch == "," && depth == 0) || ch == "}" { break }
      value.append(ch)
    }
    return value.trimmingPrefixAndSuffixSpaces()
  }
}

extension String {
  fileprivate func trimmingPrefixAndSuffixSpaces() -> String {
    String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
  }
}
