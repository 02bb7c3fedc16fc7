import VisageKernels
import VisageRuntime

/// A NumPy array of any plain numeric dtype with its values widened to `Double`: how tensor
/// dumps are read for comparison, whatever each side stored (float32 activations, and
/// constants as the model keeps them: float16 weights, int32 shapes).
public struct NPYArray: Sendable {
  /// The NumPy dtype string, such as `<f4`, `<f2` or `<i4`.
  public let descr: String
  /// The dimensions (empty for a scalar).
  public let shape: [Int]
  /// Every value in row-major order, as a double (exact for every dtype read except
  /// 64-bit integers beyond 2^53).
  public let values: [Double]

  /// The little-endian dtypes read and written, with their widths in bytes.
  static let widths: [String: Int] = [
    "<f2": 2, "<f4": 4, "<f8": 8, "|i1": 1, "<i2": 2, "<i4": 4, "<i8": 8, "|u1": 1, "<u2": 2, "<u4": 4, "<u8": 8,
    "|b1": 1,
  ]

  /// Decodes a `.npy` file of a little-endian numeric dtype in C order.
  public init(npy bytes: [UInt8]) throws(RuntimeError) {
    let (header, start) = try NPYHeader.read(bytes)
    guard let width = Self.widths[header.descr] else {
      throw .invalidInput(
        ".npy dtype '\(header.descr)' is not supported; readable: \(Self.widths.keys.sorted().joined(separator: ", "))")
    }
    let count = try NPYHeader.checkData(bytes, from: start, shape: header.shape, width: width)
    let kind = header.descr.dropFirst().first!
    var values = [Double](repeating: 0, count: count)
    for i in 0..<count {
      var raw: UInt64 = 0
      for b in 0..<width { raw |= UInt64(bytes[start + i * width + b]) << (8 * b) }
      switch (kind, width) {
      case ("f", 2): values[i] = Double(Half.float(fromBits: UInt16(raw)))
      case ("f", 4): values[i] = Double(Float(bitPattern: UInt32(raw)))
      case ("f", _): values[i] = Double(bitPattern: raw)
      case ("i", _):
        // Sign-extend from the dtype's width.
        let shift = UInt64(64 - 8 * width)
        values[i] = Double(Int64(bitPattern: raw << shift) >> Int64(shift))
      default: values[i] = Double(raw)
      }
    }
    descr = header.descr
    shape = header.shape
    self.values = values
  }

  /// A `.npy` file holding `data`, the little-endian bytes of `shape`'s values in C order as
  /// `descr` says.
  ///
  /// - Throws: `RuntimeError.invalidInput` for a dtype this type does not read, or data whose
  ///   length is not what `shape` needs.
  public static func npy(descr: String, shape: [Int], data: some Collection<UInt8>) throws(RuntimeError) -> [UInt8] {
    guard let width = widths[descr] else { throw .invalidInput(".npy dtype '\(descr)' is not supported") }
    guard let count = Shape(shape).checkedCount, count.multipliedReportingOverflow(by: width) == (data.count, false)
    else { throw .invalidInput("\(data.count) bytes of \(descr) data do not fill shape \(Shape(shape))") }
    return NPYHeader.encode(descr: descr, shape: shape) + data
  }
}
