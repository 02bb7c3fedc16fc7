import Foundation
import Testing
import VisageImageIO
import VisageRuntime
import VisageTFLite
import VisageTestSupport

@testable import Visage

/// Replays every input the fuzzers once crashed on (`Tests/Fixtures/fuzz/<target>/`, see
/// `Tools/fuzz.sh`) through the same calls the harnesses in `Fuzz/` make, in a normal build:
/// each must end in a value or a thrown error, never a trap. The caps the harnesses lower
/// are lowered the same way here, so each input takes the path it took when it was found.
struct FuzzRegressionTests {
  /// The committed inputs of one target, by file name.
  static func inputs(_ target: String) throws -> [(name: String, bytes: [UInt8])] {
    let directory = Fixtures.fixturePath("fuzz/\(target)")
    guard Fixtures.exists(directory) else { return [] }
    return try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
      .filter { !$0.hasPrefix(".") && $0 != "README.md" }
      .map { ($0, try Fixtures.bytes(atPath: directory + "/" + $0)) }
  }

  @Test func taskBundle() throws {
    for (_, bytes) in try Self.inputs("task-bundle") {
      guard let bundle = try? TaskBundle(bytes: bytes) else { continue }
      for name in bundle.entryNames { _ = try? bundle.data(named: name) }
    }
  }

  @Test func model() throws {
    for (_, bytes) in try Self.inputs("model") {
      guard let model = try? TFLiteModel(bytes: bytes), let interpreter = try? Interpreter(graph: model.graph) else {
        continue
      }
      if interpreter.shapes.reduce(0, { $0 + $1.value.count }) <= 1 << 22 { interpreter.invoke() }
    }
  }

  @Test func geometry() throws {
    for (_, bytes) in try Self.inputs("geometry") { _ = try? FaceGeometry(metadata: bytes) }
  }

  @Test func image() throws {
    for (_, bytes) in try Self.inputs("image") {
      _ = try? MPImage(encoded: bytes, limits: ImageLimits(maximumPixels: 1 << 22))
    }
  }

  @Test func y4m() throws {
    let path = NSTemporaryDirectory() + "/visage-fuzz-regression-\(getpid()).y4m"
    defer { unlink(path) }
    for (_, bytes) in try Self.inputs("y4m") {
      try Data(bytes).write(to: URL(fileURLWithPath: path))
      guard let reader = try? Y4MReader(contentsOfFile: path, limits: ImageLimits(maximumPixels: 1 << 20)) else {
        continue
      }
      for _ in 0..<8 {
        guard let frame = try? reader.nextFrame() else { break }
        #expect(frame.width == reader.width && frame.height == reader.height)
      }
    }
  }

  @Test func npy() throws {
    for (name, bytes) in try Self.inputs("npy") {
      guard let tensor = try? Tensor(npy: bytes) else { continue }
      let again = try Tensor(npy: tensor.npy)
      #expect(again.shape == tensor.shape, "\(name)")
    }
  }

  @Test func records() throws {
    for (_, bytes) in try Self.inputs("records") {
      let line = String(decoding: bytes, as: UTF8.self)
      _ = ImageRecords.parse(line, defaultSource: "fuzz#0", limits: ImageLimits(maximumPixels: 1 << 22))
    }
  }
}
