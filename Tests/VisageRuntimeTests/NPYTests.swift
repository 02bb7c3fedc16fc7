import Testing
import VisageRuntime
import VisageTFLite
import VisageTestSupport

/// `Tensor(npy:)` and `Tensor.npy`: the exchange format of `visage run` and the fixtures.
@Suite struct NPYTests {
  static let shapes: [Shape] = [[], [0], [1], [3], [2, 3], [1, 4, 4, 3], [2, 1, 0, 5]]

  @Test(arguments: shapes)
  func roundTrip(_ shape: Shape) throws {
    var random = RandomSource(seed: UInt64(shape.rank * 31 + shape.count))
    var values = random.floats(shape.count, in: -1000...1000)
    // Special values must survive bit for bit.
    let specials: [Float] = [0, -0.0, .infinity, -.infinity, .greatestFiniteMagnitude, .leastNonzeroMagnitude]
    for (k, s) in specials.enumerated() where k < values.count { values[k] = s }
    let tensor = try Tensor(shape: shape, values: values)
    let bytes = tensor.npy
    // Version 1.0 header, data on a 64-byte boundary, header ending in a newline.
    #expect(Array(bytes[0..<8]) == [0x93, 0x4E, 0x55, 0x4D, 0x50, 0x59, 1, 0])
    let headerLength = Int(bytes[8]) | Int(bytes[9]) << 8
    #expect((10 + headerLength) % 64 == 0)
    #expect(bytes[10 + headerLength - 1] == 0x0A)
    #expect(bytes.count == 10 + headerLength + 4 * shape.count)
    let decoded = try Tensor(npy: bytes)
    #expect(decoded.shape == shape)
    #expect(decoded.values.map(\.bitPattern) == values.map(\.bitPattern))
  }

  @Test func nanSurvivesTheRoundTrip() throws {
    let decoded = try Tensor(npy: try Tensor(shape: [2], values: [.nan, 1]).npy)
    #expect(decoded.values[0].isNaN && decoded.values[1] == 1)
  }

  /// A hand-written version 2.0 file of float64 values, as NumPy writes for big headers.
  @Test func readsVersion2AndFloat64() throws {
    let header = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }"
    var padded = header
    while (12 + padded.utf8.count + 1) % 64 != 0 { padded += " " }
    padded += "\n"
    var bytes: [UInt8] = [0x93, 0x4E, 0x55, 0x4D, 0x50, 0x59, 2, 0]
    let n = padded.utf8.count
    bytes += [UInt8(n & 0xFF), UInt8(n >> 8 & 0xFF), 0, 0]
    bytes += Array(padded.utf8)
    for v in [1.5, -2.25, 1e-3, 3e38] as [Double] {
      for k in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: v.bitPattern >> (8 * UInt64(k)))) }
    }
    let tensor = try Tensor(npy: bytes)
    #expect(tensor.shape == [2, 2])
    #expect(tensor.values == [1.5, -2.25, Float(1e-3 as Double), Float(3e38 as Double)])
  }

  static func npy(header: String, data: [UInt8] = []) -> [UInt8] {
    var bytes: [UInt8] = [0x93, 0x4E, 0x55, 0x4D, 0x50, 0x59, 1, 0]
    bytes += [UInt8(header.utf8.count & 0xFF), UInt8(header.utf8.count >> 8)]
    return bytes + Array(header.utf8) + data
  }

  @Test(arguments: [
    ("not npy", Array("PK\u{3}\u{4} hello".utf8)),
    ("empty", []),
    ("version 9", [0x93, 0x4E, 0x55, 0x4D, 0x50, 0x59, 9, 0, 0, 0]),
    ("header past the end", [0x93, 0x4E, 0x55, 0x4D, 0x50, 0x59, 1, 0, 0xFF, 0x7F, 0x7B]),
    ("big-endian", npy(header: "{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", data: [0, 0, 0, 0])),
    ("int32", npy(header: "{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }", data: [0, 0, 0, 0])),
    (
      "fortran",
      npy(header: "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", data: Array(repeating: 0, count: 16))
    ),
    ("no shape", npy(header: "{'descr': '<f4', 'fortran_order': False, }", data: [0, 0, 0, 0])),
    ("negative", npy(header: "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }")),
    (
      "short data",
      npy(header: "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 3), }", data: Array(repeating: 0, count: 35))
    ),
    ("huge shape", npy(header: "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }")),
    ("shape overflow", npy(header: "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }")),
  ])
  func malformedFilesThrow(_ label: String, _ bytes: [UInt8]) {
    #expect(throws: RuntimeError.self, "\(label)") { _ = try Tensor(npy: bytes) }
  }

  /// Headers are parsed as the dict NumPy writes and nothing looser, and the data must be
  /// exactly what the shape needs.
  @Test(arguments: [
    ("no comma between sizes", "{'descr': '<f4', 'fortran_order': False, 'shape': (2 2), }", 16),
    ("one size without its comma", "{'descr': '<f4', 'fortran_order': False, 'shape': (4), }", 16),
    ("empty item", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,,2), }", 16),
    ("nested tuple", "{'descr': '<f4', 'fortran_order': False, 'shape': ((2, 2)), }", 16),
    ("repeated key", "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", 16),
    ("unknown key", "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), 'extra': 1, }", 16),
    ("no descr", "{'fortran_order': False, 'shape': (4,), }", 16),
    ("text after the dict", "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), } junk", 16),
    ("unclosed dict", "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), ", 16),
    ("fortran_order not a bool", "{'descr': '<f4', 'fortran_order': 0, 'shape': (4,), }", 16),
    ("trailing data", "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", 17),
  ])
  func headersAreStrictAndDataExact(_ label: String, _ header: String, _ dataBytes: Int) {
    #expect(throws: RuntimeError.self, "\(label)") {
      _ = try Tensor(npy: Self.npy(header: header, data: Array(repeating: 0, count: dataBytes)))
    }
  }

  /// The forms NumPy writes are all read: a scalar, one size, no trailing comma, padding.
  @Test func numpysOwnHeaderFormsAreRead() throws {
    for (shape, tuple) in [([], "()"), ([4], "(4,)"), ([2, 2], "(2, 2)"), ([2, 2], "(2,2,)")] as [([Int], String)] {
      let header = "{'descr': '<f4', 'fortran_order': False, 'shape': \(tuple), }    \n"
      let count = shape.reduce(1, *)
      #expect(
        try Tensor(npy: Self.npy(header: header, data: Array(repeating: 0, count: 4 * count))).shape == Shape(shape))
    }
    let unpadded = "{'descr':'<f4','fortran_order':False,'shape':(1,)}"
    #expect(try Tensor(npy: Self.npy(header: unpadded, data: [0, 0, 0x80, 0x3F])).values == [1])
  }

  /// A shape past the interpreter's tensor limit is refused before its values are allocated,
  /// by an error that names the limit.
  @Test func shapesPastTheTensorLimitAreRefused() throws {
    let header = "{'descr': '<f4', 'fortran_order': False, 'shape': (\(Interpreter.maximumTensorCount + 1),), }"
    let error = try requireThrows(RuntimeError.self) { try Tensor(npy: Self.npy(header: header)) }
    #expect(error.description.contains("limit of \(Interpreter.maximumTensorCount) values"), "\(error)")
  }

  /// Every prefix and thousands of byte flips of a small file: decoded or refused, never a trap.
  @Test func truncationsAndFlipsNeverTrap() throws {
    let bytes = try Tensor(shape: [2, 3], values: [1, 2, 3, 4, 5, 6]).npy
    for length in 0..<bytes.count {
      #expect(throws: RuntimeError.self, "prefix \(length)") { _ = try Tensor(npy: Array(bytes[0..<length])) }
    }
    var random = RandomSource(seed: 77)
    var decoded = 0
    for _ in 0..<3000 {
      var copy = bytes
      for _ in 0..<random.int(in: 1..<4) {
        // Aim at the header, where the structure is.
        copy[random.int(in: 0..<min(copy.count, 80))] ^= UInt8(random.int(in: 1..<256))
      }
      if let tensor = try? Tensor(npy: copy) {
        decoded += 1
        #expect(tensor.values.count == tensor.shape.count)
      }
    }
    #expect(decoded < 3000)
  }
}
