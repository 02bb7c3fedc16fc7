import Foundation
import Testing
import VisageKernels

/// The AArch64 build of the micro-kernels, run as a separate program: `.ci/arm64` compiles
/// Sources/VisageMicroKernels for AArch64 (Embedded Swift) with the driver in Tools/aarch64,
/// and the AArch64 suites send it the kernel calls the host made up and hold what comes back
/// to the reference kernels' results, computed here on the same inputs.
///
/// Configured by the environment `.ci/arm64` sets; the suites are disabled without it:
/// - `VISAGE_AARCH64_DRIVER`: the driver program;
/// - `VISAGE_AARCH64_EMULATOR`: what runs it (`qemu-aarch64-static` when unset; empty on an
///   arm64 Linux machine, which runs it directly);
/// - `VISAGE_AARCH64_FMA`: `1` when the driver's copy fuses multiply-adds (`VISAGE_FMA`),
///   which relaxes the GEMM and depthwise bounds from exact to rounding.
///
/// The case file is "VAK1", then per case: the kind, the integers (count, then Int64s), the
/// doubles (count, then Float64s), the buffers (count, then each as a byte count, −1 for a
/// null pointer, and its bytes), and the index of the buffer to send back. The driver writes
/// each case's output buffer as a byte count and its bytes. All little-endian, as both ends are.
public enum AArch64Driver {
  /// One kernel call (or one kernel's sequence of row calls) and its operands.
  public struct Case {
    /// The kernel: see `Kind`.
    public var kind: Kind
    /// Sizes, strides and offsets, in the order Tools/aarch64/Cases.swift reads them.
    public var ints: [Int]
    /// The clamp's bounds first, then anything else the kernel takes in floating point.
    public var doubles: [Double]
    /// The pointers' contents, nil for a null pointer.
    public var buffers: [[UInt8]?]
    /// Which buffer the kernel writes.
    public var output: Int

    /// A case of `kind`.
    public init(_ kind: Kind, ints: [Int], doubles: [Double], buffers: [[UInt8]?], output: Int) {
      (self.kind, self.ints, self.doubles, self.buffers, self.output) = (kind, ints, doubles, buffers, output)
    }
  }

  /// The micro-kernel entry points, numbered as the driver numbers them.
  public enum Kind: Int64, Sendable {
    case packedGEMM = 1
    case leftPackedGEMM = 2
    case depthwise3x3Rows = 3
    case maxPool2x2Rows = 4
    case fixedPointWarp = 5
  }

  /// The driver's path, when `.ci/arm64` has built one for this run.
  public static let path: String? = {
    let value = ProcessInfo.processInfo.environment["VISAGE_AARCH64_DRIVER"] ?? ""
    return value.isEmpty ? nil : value
  }()

  /// Whether the suites can run.
  public static var isConfigured: Bool { path != nil }

  /// Whether the driver's micro-kernels fuse multiply-adds.
  public static let fusesMultiplyAdd = ProcessInfo.processInfo.environment["VISAGE_AARCH64_FMA"] == "1"

  /// The bound for a kernel summing `length` products in the reference's order on the
  /// driver's copy: exact unfused, rounding fused (what `Tolerance.sameOrder` gives x86-64).
  public static func sameOrder(_ length: Int) -> Tolerance { fusesMultiplyAdd ? .reordered(length) : .exact }

  /// `expectClose` of a driver's output, and where `tolerance` is exact, of its bits too
  /// (`expectClose` takes +0 for −0); false on a mismatch.
  @discardableResult
  public static func expectMatch(
    _ output: [Float], _ expected: [Float], _ tolerance: Tolerance, _ label: String, shape: [Int]? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
  ) -> Bool {
    guard expectClose(output, expected, tolerance, "aarch64 " + label, shape: shape, sourceLocation: sourceLocation)
    else { return false }
    guard tolerance.bound == 0,
      let i = output.indices.first(where: { output[$0].bitPattern != expected[$0].bitPattern })
    else { return true }
    Issue.record(
      "aarch64 \(label): the bits differ at index \(i): \(output[i]) against \(expected[i])",
      sourceLocation: sourceLocation)
    return false
  }

  /// The bytes of `values`, for a buffer.
  public static func bytes(_ values: [Float]) -> [UInt8] { values.withUnsafeBytes { Array($0) } }

  /// Runs `cases` in one driver process and returns each one's output buffer as floats.
  public static func run(_ cases: [Case]) throws -> [[Float]] {
    guard let path else { throw Failure("VISAGE_AARCH64_DRIVER is not set") }
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("visage-aarch64-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let input = folder.appendingPathComponent("cases")
    let output = folder.appendingPathComponent("outputs")
    try encode(cases).write(to: input)

    let emulator = ProcessInfo.processInfo.environment["VISAGE_AARCH64_EMULATOR"] ?? "qemu-aarch64-static"
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = (emulator.isEmpty ? [] : [emulator]) + [path, input.path, output.path]
    let errors = Pipe()
    process.standardError = errors
    try process.run()
    let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw Failure("the driver exited with \(process.terminationStatus): \(message)")
    }
    return try decode(Data(contentsOf: output), count: cases.count)
  }

  static func encode(_ cases: [Case]) -> Data {
    var data = Data("VAK1".utf8)
    func append(_ value: Int64) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
    for c in cases {
      append(c.kind.rawValue)
      append(Int64(c.ints.count))
      for value in c.ints { append(Int64(value)) }
      append(Int64(c.doubles.count))
      for value in c.doubles { append(Int64(bitPattern: value.bitPattern)) }
      append(Int64(c.buffers.count))
      for buffer in c.buffers {
        append(Int64(buffer?.count ?? -1))
        if let buffer { data.append(contentsOf: buffer) }
      }
      append(Int64(c.output))
    }
    return data
  }

  static func decode(_ data: Data, count: Int) throws -> [[Float]] {
    var results: [[Float]] = []
    var offset = data.startIndex
    while results.count < count {
      guard offset + 8 <= data.endIndex else { throw Failure("the driver wrote \(results.count) of \(count) outputs") }
      let size = Int(data[offset..<offset + 8].withUnsafeBytes { $0.loadUnaligned(as: Int64.self) })
      offset += 8
      guard size >= 0, size % 4 == 0, offset + size <= data.endIndex else { throw Failure("a truncated output") }
      var values = [Float](repeating: 0, count: size / 4)
      values.withUnsafeMutableBytes { _ = data.copyBytes(to: $0, from: offset..<offset + size) }
      results.append(values)
      offset += size
    }
    return results
  }

  /// Why a driver run failed.
  public struct Failure: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
  }
}
