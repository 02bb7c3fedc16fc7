import Foundation
import Testing
import VisageKernels
import VisageRuntime
import VisageTFLite
import VisageTestSupport

/// Hostile files: truncations and random byte flips of the real models. Every attempt must
/// end in success or a `TFLiteError` that explains itself; a trap or a hang fails the run.
///
/// Flips are seeded (SplitMix64), so any failure reproduces from the printed seed; freeze
/// it as a named case in LoaderTests when one turns up.
// The limit turns a hang into a failure. It is generous because the clock runs while a test
// waits for a thread: in the parallel run, heavy suites held both cores past a 1-minute limit.
@Suite(.timeLimit(.minutes(minutesAllowed(10)))) struct RobustnessTests {
  /// Bytes of each bundled model, read once.
  static let models: [BundledModel: [UInt8]] = {
    var result: [BundledModel: [UInt8]] = [:]
    guard let bundle = try? TaskBundle(bytes: Fixtures.taskBundleBytes()) else { return result }
    for model in BundledModel.allCases {
      result[model] =
        model.isInTaskBundle
        ? try? bundle.data(named: model.fileName) : try? Fixtures.bytes(atPath: model.reference)
    }
    return result
  }()

  static func bytes(of model: BundledModel) throws -> [UInt8] {
    try #require(models[model], "cannot read \(model)")
  }

  // MARK: Truncation

  /// 300 prefix lengths spread over the file, plus the last few bytes one at a time.
  static func truncationLengths(_ count: Int) -> [Int] {
    Array(Set((0..<300).map { $0 * count / 300 } + (1...8).map { count - $0 })).sorted()
  }

  /// Where the flatbuffer ends: MediaPipe appends a zip of associated files (here an empty
  /// one, just its 22-byte end record) after the model, which the loader rightly ignores.
  static func flatBufferEnd(_ bytes: [UInt8]) -> Int {
    let end = bytes.count - 22
    guard end >= 0, bytes[end..<(end + 4)].elementsEqual([0x50, 0x4B, 0x05, 0x06]) else { return bytes.count }
    return end
  }

  /// Every prefix that cuts into the flatbuffer must throw; prefixes that only cut the
  /// appended zip record may load, but must not trap.
  @Test func everyTruncationOfFaceDetectorThrows() throws {
    let bytes = try Self.bytes(of: .faceDetector)
    let end = Self.flatBufferEnd(bytes)
    #expect(end == bytes.count - 22, "face_detector should end with an empty zip record")
    for length in Self.truncationLengths(bytes.count) {
      let prefix = Array(bytes[0..<length])
      if length < end {
        #expect(throws: TFLiteError.self, "prefix of \(length) of \(bytes.count) bytes") {
          _ = try Interpreter(model: TFLiteModel(bytes: prefix))
        }
      } else {
        _ = try? Interpreter(model: TFLiteModel(bytes: prefix))
      }
    }
  }

  /// Each prefix throws somewhere between opening the bundle and loading its models.
  ///
  /// Not always `.invalidBundle`: a prefix ending just after face_detector.tflite or
  /// face_landmarks_detector.tflite ends with that model's own empty zip record, so it opens
  /// as an empty archive and asking for an entry is `.missingEntry`.
  @Test func everyTruncationOfTheTaskBundleThrows() throws {
    let bytes = try Fixtures.taskBundleBytes()
    var emptyArchives = 0
    for length in Self.truncationLengths(bytes.count) {
      #expect(throws: TFLiteError.self, "prefix of \(length) of \(bytes.count) bytes") {
        let bundle = try TaskBundle(bytes: Array(bytes[0..<length]))
        if bundle.entryNames.isEmpty { emptyArchives += 1 }
        for name in Fixtures.taskBundleEntries where name.hasSuffix(".tflite") {
          _ = try TFLiteModel(bytes: bundle.data(named: name))
        }
      }
    }
    print("task bundle truncations read as empty archives: \(emptyArchives)")
  }

  // MARK: Byte flips

  /// How a batch of mutants fared.
  struct Tally: CustomStringConvertible {
    var mutants = 0
    var loaded = 0
    var built = 0
    var ran = 0
    var errors: [String: Int] = [:]

    var description: String {
      let kinds = errors.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
      return "\(mutants) mutants: \(loaded) loaded, \(built) built, \(ran) ran; errors: \(kinds)"
    }
  }

  /// The case name of a `TFLiteError`, for the tally.
  static func kind(_ error: TFLiteError) -> String {
    switch error {
    case .malformed: "malformed"
    case .unsupportedOperator: "unsupportedOperator"
    case .unsupported: "unsupported"
    case .invalidBundle: "invalidBundle"
    case .missingEntry: "missingEntry"
    case .unreadableFile: "unreadableFile"
    case .fileTooLarge: "fileTooLarge"
    case .invalidGraph: "invalidGraph"
    }
  }

  /// `bytes` with 1 to 4 bytes XORed with random non-zero values. Half the flips land
  /// anywhere; half land outside the constant data, where the structure is, since a flip
  /// in a weight only changes a number.
  static func mutant(of bytes: [UInt8], seed: UInt64, structure: [Range<Int>]) -> [UInt8] {
    var random = RandomSource(seed: seed)
    var copy = bytes
    let structureSize = structure.reduce(0) { $0 + $1.count }
    for _ in 0..<random.int(in: 1..<5) {
      var position = random.int(in: 0..<bytes.count)
      if structureSize > 0, random.next() & 1 == 0 {
        var k = random.int(in: 0..<structureSize)
        for range in structure {
          if k < range.count {
            position = range.lowerBound + k
            break
          }
          k -= range.count
        }
      }
      copy[position] ^= UInt8(random.int(in: 1..<256))
    }
    return copy
  }

  /// The byte ranges outside every buffer's data.
  static func structureRanges(_ bytes: [UInt8]) -> [Range<Int>] {
    var result: [Range<Int>] = []
    var start = 0
    for data in TFLiteLayout.bufferDataRanges(bytes).sorted(by: { $0.lowerBound < $1.lowerBound }) {
      if data.lowerBound > start { result.append(start..<data.lowerBound) }
      start = max(start, data.upperBound)
    }
    if start < bytes.count { result.append(start..<bytes.count) }
    return result
  }

  /// Loads, builds and (optionally) runs each mutant of `model` with seeds in `seeds`.
  static func fuzz(
    _ model: BundledModel, seeds: Range<UInt64>, run: Bool, implementation: Implementation = .optimized
  ) throws -> Tally {
    let bytes = try Self.bytes(of: model)
    let structure = structureRanges(bytes)
    var tally = Tally()
    for seed in seeds {
      let mutant = mutant(of: bytes, seed: seed, structure: structure)
      tally.mutants += 1
      do {
        let loaded = try TFLiteModel(bytes: mutant)
        tally.loaded += 1
        let interpreter = try Interpreter(model: loaded, implementation: implementation)
        tally.built += 1
        if run {
          interpreter.invoke()
          tally.ran += 1
        }
      } catch {
        tally.errors[kind(error), default: 0] += 1
        #expect(!error.description.isEmpty, "\(model) seed \(seed): empty error description")
      }
    }
    return tally
  }

  /// 400 mutants of face_detector read for a tensor dump (which reads up to an unsupported
  /// operator instead of failing), built unfused, run, and every entry's file made: each
  /// ends in a dump or a `TFLiteError`, never a trap.
  @Test func faceDetectorFlipsDump() throws {
    let bytes = try Self.bytes(of: .faceDetector)
    let structure = Self.structureRanges(bytes)
    var tally = Tally()
    for seed in UInt64(7_000_000)..<7_000_400 {
      tally.mutants += 1
      do throws(TFLiteError) {
        let dump = try TensorDump(modelBytes: Self.mutant(of: bytes, seed: seed, structure: structure))
        tally.loaded += 1
        let interpreter = try Interpreter(model: dump.model, preservingAllTensors: true)
        tally.built += 1
        interpreter.invoke()
        tally.ran += 1
        let unwritten = dump.entries.filter { dump.npy(of: $0, from: interpreter) == nil }
        #expect(unwritten.isEmpty, "seed \(seed)")
      } catch {
        tally.errors[Self.kind(error), default: 0] += 1
      }
    }
    print("face_detector flips dumped: \(tally)")
    #expect(tally.ran > 100)
  }

  /// The structure finder must see the real models' weights, or the flips lose their aim.
  @Test func bufferRangesCoverTheWeights() throws {
    for model in BundledModel.allCases {
      let bytes = try Self.bytes(of: model)
      let data = TFLiteLayout.bufferDataRanges(bytes).reduce(0) { $0 + $1.count }
      #expect(data > bytes.count / 2, "\(model): \(data) of \(bytes.count) bytes in buffers")
    }
  }

  /// 6,000 mutants of face_detector in 10 chunks (so they spread over the cores); each
  /// that builds also runs once, with the optimized kernels, or the (slower) reference
  /// kernels in two chunks of ten.
  @Test(arguments: 0..<10)
  func faceDetectorFlipsLoadBuildAndRun(_ chunk: Int) throws {
    guard Self.flipChunks.contains(chunk) else { return }
    let seeds = UInt64(chunk * 600)..<UInt64(chunk * 600 + 600)
    let implementation: Implementation = chunk % 5 == 4 ? .reference : .optimized
    let tally = try Self.fuzz(.faceDetector, seeds: seeds, run: true, implementation: implementation)
    print("face_detector flips, seeds \(seeds), \(implementation): \(tally)")
    #expect(tally.mutants == 600)
  }

  /// The face_detector chunks to run: all ten, or those `VISAGE_FLIP_CHUNKS` lists ("0,4").
  /// `.ci/run` runs two under AddressSanitizer (one per implementation), where all ten take
  /// 100 s of a serial run and libFuzzer's model target covers the same ground
  /// coverage-guided; the test command runs all ten.
  static let flipChunks: Set<Int> = {
    guard let list = ProcessInfo.processInfo.environment["VISAGE_FLIP_CHUNKS"], !list.isEmpty else {
      return Set(0..<10)
    }
    return Set(list.split(separator: ",").compactMap { Int($0) })
  }()

  /// 600 mutants of each other model: load and build only.
  @Test(arguments: [BundledModel.faceLandmarksDetector, .faceBlendshapes, .faceDetectionFullRange])
  func otherModelFlipsLoadAndBuild(_ model: BundledModel) throws {
    let seeds = UInt64(1_000_000)..<UInt64(1_000_600)
    let tally = try Self.fuzz(model, seeds: seeds, run: false)
    print("\(model) flips, seeds \(seeds): \(tally)")
    #expect(tally.mutants == 600)
  }

  /// Flips in the zip structure of the .task (the first local header, and the central
  /// directory and end record at the back): open it and read two entries.
  @Test func taskBundleStructureFlips() throws {
    let bytes = try Fixtures.taskBundleBytes()
    let back = (bytes.count - 512)..<bytes.count
    var opened = 0
    var read = 0
    var errors: [String: Int] = [:]
    for seed in UInt64(2_000_000)..<UInt64(2_000_400) {
      var random = RandomSource(seed: seed)
      var copy = bytes
      for _ in 0..<random.int(in: 1..<4) {
        let position = random.next() & 1 == 0 ? random.int(in: 0..<100) : random.int(in: back)
        copy[position] ^= UInt8(random.int(in: 1..<256))
      }
      do {
        let bundle = try TaskBundle(bytes: copy)
        opened += 1
        _ = try bundle.data(named: "geometry_pipeline_metadata_landmarks.binarypb")
        _ = try TFLiteModel(bytes: bundle.data(named: "face_detector.tflite"))
        read += 1
      } catch {
        errors[Self.kind(error), default: 0] += 1
        #expect(!error.description.isEmpty, "seed \(seed)")
      }
    }
    print("task bundle flips: 400 mutants, \(opened) opened, \(read) read both entries; errors: \(errors)")
  }
}
