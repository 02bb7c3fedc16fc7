import Testing
import VisageTFLite
import VisageTestSupport

@Suite struct TaskBundleTests {
  /// Entry sizes from Weights/README.md.
  static let entrySizes = [
    "face_detector.tflite": 229_746, "face_landmarks_detector.tflite": 2_553_590,
    "face_blendshapes.tflite": 955_312, "geometry_pipeline_metadata_landmarks.binarypb": 19_376,
  ]

  @Test func listsTheFourEntriesOfTheRealBundle() throws {
    let bundle = try TaskBundle(bytes: Fixtures.taskBundleBytes())
    #expect(bundle.entryNames == Fixtures.taskBundleEntries)
    for entry in bundle.entries {
      #expect(entry.size == Self.entrySizes[entry.name], "\(entry.name)")
    }
  }

  @Test func returnsEntryBytesThatPassTheirCRC() throws {
    let bundle = try TaskBundle(bytes: Fixtures.taskBundleBytes())
    for name in bundle.entryNames {
      let data = try bundle.data(named: name)
      #expect(data.count == Self.entrySizes[name], "\(name)")
      if name.hasSuffix(".tflite") {
        #expect(Array(data[4..<8]) == Array("TFL3".utf8), "\(name) has no TFL3 identifier")
      }
    }
  }

  @Test func corruptEntryFailsItsCRCButOthersStillRead() throws {
    var bytes = try Fixtures.taskBundleBytes()
    let original = try TaskBundle(bytes: bytes)
    let blendshapes = try original.data(named: "face_blendshapes.tflite")
    // Stored entries appear verbatim in the archive; flip one byte in the middle of this one.
    let start = try #require(firstOffset(of: Array(blendshapes[0..<64]), in: bytes))
    bytes[start + blendshapes.count / 2] ^= 0x5A
    let damaged = try TaskBundle(bytes: bytes)
    let error = try requireThrows(TFLiteError.self) { try damaged.data(named: "face_blendshapes.tflite") }
    guard case .invalidBundle(let reason) = error else {
      Issue.record("expected .invalidBundle, got \(error)")
      return
    }
    #expect(reason.contains("CRC"), "\(reason)")
    #expect(try damaged.data(named: "face_detector.tflite").count == Self.entrySizes["face_detector.tflite"])
  }

  @Test func missingEntryListsTheNames() throws {
    let bundle = try TaskBundle(bytes: Fixtures.taskBundleBytes())
    let error = try requireThrows(TFLiteError.self) { try bundle.data(named: "face_mesh.tflite") }
    #expect(error == .missingEntry(name: "face_mesh.tflite", available: Fixtures.taskBundleEntries))
    for name in Fixtures.taskBundleEntries {
      #expect(error.description.contains(name))
    }
  }

  @Test(arguments: [
    ("empty", [UInt8]()),
    ("too short", [UInt8](repeating: 0x50, count: 21)),
    ("text", Array(String(repeating: "not a zip archive at all. ", count: 40).utf8)),
    ("zeros", [UInt8](repeating: 0, count: 4096)),
  ])
  func bytesThatAreNotAZipAreAnInvalidBundle(_ label: String, _ bytes: [UInt8]) {
    expectInvalidBundle(label) { _ = try TaskBundle(bytes: bytes) }
  }

  @Test func aTFLiteFileIsNotABundle() throws {
    let model = try Fixtures.bytes(atPath: BundledModel.faceDetectionFullRange.reference)
    expectInvalidBundle("tflite") { _ = try TaskBundle(bytes: model) }
  }

  @Test func truncatedRealBundleThrows() throws {
    let bytes = try Fixtures.taskBundleBytes()
    // Cut the end record, the directory, and the middle of the last entry.
    for cut in [1, 10, 22, 100, 300, 1000, 20_000, bytes.count / 2, bytes.count - 30] {
      expectInvalidBundle("minus \(cut) bytes") {
        let bundle = try TaskBundle(bytes: Array(bytes.dropLast(cut)))
        for name in bundle.entryNames { _ = try bundle.data(named: name) }
      }
    }
  }

  /// A handmade two-entry archive, cut at every length: each prefix throws, none traps.
  @Test func everyTruncationOfASmallBundleThrows() throws {
    let archive = ZipWriter.archive([
      .init(name: "a.bin", data: Array(0..<200)), .init(name: "b.tflite", data: Array(repeating: 7, count: 50)),
    ])
    let bundle = try TaskBundle(bytes: archive)
    #expect(bundle.entryNames == ["a.bin", "b.tflite"])
    #expect(try bundle.data(named: "a.bin") == Array(0..<200))
    for length in 0..<archive.count {
      #expect(throws: TFLiteError.self, "prefix of \(length) bytes") {
        let cut = try TaskBundle(bytes: Array(archive[0..<length]))
        for name in cut.entryNames { _ = try cut.data(named: name) }
      }
    }
  }

  /// MediaPipe stores entries; a deflated one must be refused with a message saying so,
  /// not misread as raw bytes.
  @Test func deflatedEntryIsAClearError() throws {
    let payload = Array("a deflated entry".utf8)
    let archive = ZipWriter.archive([
      .init(name: "stored.txt", data: payload), .init(name: "packed.tflite", data: payload, method: .deflated),
    ])
    let bundle = try TaskBundle(bytes: archive)
    #expect(bundle.entryNames == ["stored.txt", "packed.tflite"])
    #expect(try bundle.data(named: "stored.txt") == payload)
    let error = try requireThrows(TFLiteError.self) { try bundle.data(named: "packed.tflite") }
    guard case .invalidBundle(let reason) = error else {
      Issue.record("expected .invalidBundle, got \(error)")
      return
    }
    #expect(reason.contains("compressed") && reason.contains("packed.tflite"), "\(reason)")
  }

  @Test func wrongRecordedCRCIsAnInvalidBundle() throws {
    let data: [UInt8] = Array(0..<64)
    let archive = ZipWriter.archive([.init(name: "x", data: data, recordedCRC: ZipWriter.crc32(data) ^ 1)])
    let bundle = try TaskBundle(bytes: archive)
    expectInvalidBundle("crc") { _ = try bundle.data(named: "x") }
  }

  /// The end record claims far more entries than the directory holds.
  @Test func directoryCountBeyondTheFileThrows() throws {
    var archive = ZipWriter.archive([.init(name: "x", data: [1, 2, 3])])
    let end = archive.count - 22
    archive[end + 10] = 0xFF
    archive[end + 11] = 0x7F
    expectInvalidBundle("entry count") { _ = try TaskBundle(bytes: archive) }
  }

  @Test func entryWhoseDataRunsPastTheFileThrows() throws {
    var archive = ZipWriter.archive([.init(name: "x", data: [1, 2, 3])])
    // Central directory compressed size (offset 20 in the header) → 0x00FFFFFF.
    let directory = try #require(firstOffset(of: [0x50, 0x4B, 0x01, 0x02], in: archive))
    archive[directory + 20] = 0xFF
    archive[directory + 21] = 0xFF
    archive[directory + 22] = 0xFF
    expectInvalidBundle("size") { _ = try TaskBundle(bytes: archive) }
  }

  @Test func modelSourceReadsBundleEntriesAndExplainsABareTaskPath() throws {
    let model = try ModelSource.model(at: BundledModel.faceDetector.reference)
    #expect(model.graph.nodes.count > 10)
    let error = try requireThrows(TFLiteError.self) { try ModelSource.model(at: BundledModel.taskBundlePath) }
    guard case .missingEntry(_, let available) = error else {
      Issue.record("expected .missingEntry, got \(error)")
      return
    }
    #expect(available == Fixtures.taskBundleEntries)
    let missing = try requireThrows(TFLiteError.self) {
      try ModelSource.model(at: Fixtures.weightsPath("no_such_model.tflite"))
    }
    #expect(missing == .unreadableFile(path: Fixtures.weightsPath("no_such_model.tflite")))
  }
}

/// Expects `body` to throw `TFLiteError.invalidBundle` with a message.
func expectInvalidBundle(
  _ label: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) {
  do {
    try body()
    Issue.record("\(label): no error", sourceLocation: sourceLocation)
  } catch let error as TFLiteError {
    guard case .invalidBundle(let reason) = error, !reason.isEmpty else {
      Issue.record("\(label): expected .invalidBundle, got \(error)", sourceLocation: sourceLocation)
      return
    }
  } catch {
    Issue.record("\(label): unexpected \(error)", sourceLocation: sourceLocation)
  }
}

/// The first position of `needle` in `haystack`.
func firstOffset(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
  guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
  for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
    if haystack[start..<(start + needle.count)].elementsEqual(needle) { return start }
  }
  return nil
}
