import VisageRuntime

/// Reading and writing NumPy `.npy` files (format versions 1 to 3), the exchange format of
/// `visage run` and of the reference fixtures.
extension Tensor {
  /// Decodes a little-endian float32 or float64 `.npy` file in C order.
  public init(npy bytes: [UInt8]) throws(RuntimeError) {
    let (header, start) = try NPYHeader.read(bytes)
    let width: Int
    switch header.descr {
    case "<f4": width = 4
    case "<f8": width = 8
    default: throw .invalidInput(".npy dtype '\(header.descr)' is not supported; use little-endian float32 or float64")
    }
    let shape = Shape(header.shape)
    let count = try NPYHeader.checkData(bytes, from: start, shape: header.shape, width: width)
    var values = [Float](repeating: 0, count: count)
    for i in 0..<count {
      var raw: UInt64 = 0
      for b in 0..<width { raw |= UInt64(bytes[start + i * width + b]) << (8 * b) }
      values[i] = width == 4 ? Float(bitPattern: UInt32(raw)) : Float(Double(bitPattern: raw))
    }
    // checkData has matched the count to the shape.
    try self.init(shape: shape, values: values)
  }

  /// Encodes the tensor as a version 1.0 float32 `.npy` file.
  public var npy: [UInt8] {
    var bytes = NPYHeader.encode(descr: "<f4", shape: shape.dimensions)
    bytes.reserveCapacity(bytes.count + values.count * 4)
    for v in values {
      let bits = v.bitPattern
      bytes += [UInt8(bits & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits >> 16 & 0xFF), UInt8(bits >> 24)]
    }
    return bytes
  }
}

extension NPYHeader {
  /// The header of a `.npy` file and where its data starts.
  static func read(_ bytes: [UInt8]) throws(RuntimeError) -> (header: NPYHeader, dataStart: Int) {
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
    let header = try NPYHeader(bytes[headerStart..<(headerStart + headerLength)])
    guard !header.fortranOrder else { throw .invalidInput(".npy data in Fortran order is not supported") }
    return (header, headerStart + headerLength)
  }

  /// The value count of `shape`, once the file is known to hold exactly that many values of
  /// `width` bytes after `start` (a shorter file is cut, a longer one is not what it says),
  /// within the interpreter's bound on a tensor, checked before anything is allocated.
  static func checkData(_ bytes: [UInt8], from start: Int, shape: [Int], width: Int) throws(RuntimeError) -> Int {
    guard let count = Shape(shape).checkedCount, count <= Interpreter.maximumTensorCount else {
      throw .invalidInput(
        ".npy shape \(Shape(shape)) holds more than the limit of \(Interpreter.maximumTensorCount) values "
          + "(Interpreter.maximumTensorCount)")
    }
    guard bytes.count - start == count * width else {
      throw .invalidInput(".npy data is \(bytes.count - start) bytes; its shape \(Shape(shape)) needs \(count * width)")
    }
    return count
  }

  /// A version 1.0 header for `descr` and `shape`, padded so the data that follows starts
  /// on a 64-byte boundary.
  static func encode(descr: String, shape: [Int]) -> [UInt8] {
    let dims = shape.map(String.init)
    let tuple = dims.count == 1 ? "(\(dims[0]),)" : "(" + dims.joined(separator: ", ") + ")"
    var header = "{'descr': '\(descr)', 'fortran_order': False, 'shape': \(tuple), }"
    while (10 + header.utf8.count + 1) % 64 != 0 { header += " " }
    header += "\n"
    var bytes: [UInt8] = [0x93, 0x4E, 0x55, 0x4D, 0x50, 0x59, 1, 0]
    bytes += [UInt8(header.utf8.count & 0xFF), UInt8(header.utf8.count >> 8)]
    return bytes + Array(header.utf8)
  }
}
