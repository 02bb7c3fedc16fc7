import Foundation
import Testing
import Visage
import VisageImageIO
import VisageTestSupport

/// Exif orientation on the command line (`Tests/Fixtures/exif/`, from
/// `Tools/make_exif_fixtures.py`): every input is turned upright as a viewer shows it, so a
/// photo stored sideways gives the positions of the upright photo; the line says what was
/// applied; `--ignore-exif` works on the stored pixels.
@Suite(.timeLimit(.minutes(minutesAllowed(5)))) struct ExifOrientationCLITests {
  static func path(_ name: String) -> String { "Tests/Fixtures/exif/" + name }

  static func onlyLine(_ arguments: [String], stdin: Data = Data()) throws -> [String: Any] {
    let run = try CLI.run(arguments + ["--output", "json"], stdin: stdin)
    #expect(run.status == 0, "\(run.stderr)")
    return try #require(try run.jsonLines().first)
  }

  static func box(_ line: [String: Any]) throws -> [String: Int] {
    let detections = try #require(line["detections"] as? [[String: Any]])
    #expect(detections.count == 1)
    return try #require(detections.first?["boundingBox"] as? [String: Int])
  }

  /// Sideways (6, 8), upside down (3) and mirrored (5, 7) files give the upright file's face
  /// within a few pixels (each was JPEG-compressed in its own layout), and say what was applied.
  @Test(arguments: [(6, "right"), (8, "left"), (3, "down"), (5, "leftMirrored"), (7, "rightMirrored")])
  func detectReportsUprightPositions(tag: Int, name: String) throws {
    let reference = try Self.onlyLine(["detect", Self.path("jpeg_1.jpg")])
    #expect(reference["orientation"] as? String == "up" && reference["exifOrientation"] as? Int == 1)
    let line = try Self.onlyLine(["detect", Self.path("jpeg_\(tag).jpg")])
    #expect(line["orientation"] as? String == name && line["exifOrientation"] as? Int == tag)
    #expect(line["width"] as? Int == 192 && line["height"] as? Int == 256)
    let (a, b) = (try Self.box(reference), try Self.box(line))
    for key in ["originX", "originY", "width", "height"] {
      #expect(abs(a[key]! - b[key]!) <= 2, "\(key): \(a) vs \(b)")
    }
    let keypoints = { (l: [String: Any]) in
      ((l["detections"] as? [[String: Any]])?.first?["keypoints"] as? [[String: Any]]) ?? []
    }
    for (p, q) in zip(keypoints(reference), keypoints(line)) {
      #expect(
        abs((p["x"] as! Double) - (q["x"] as! Double)) < 0.01 && abs((p["y"] as! Double) - (q["y"] as! Double)) < 0.01)
    }
  }

  /// `--ignore-exif`: the stored, sideways pixels, with the tag still named. The face's centre
  /// is where the upright one's lands once turned back: orientation 6 shows the stored
  /// 256×192 pixels turned a quarter clockwise, so upright (u, v) is stored (v, 192 − u).
  @Test func ignoreExifUsesTheStoredPixels() throws {
    let upright = try Self.box(try Self.onlyLine(["detect", Self.path("jpeg_6.jpg")]))
    let line = try Self.onlyLine(["detect", Self.path("jpeg_6.jpg"), "--ignore-exif"])
    #expect(line["orientation"] as? String == "up" && line["exifOrientation"] as? Int == 6)
    #expect(line["width"] as? Int == 256 && line["height"] as? Int == 192)
    let stored = try Self.box(line)
    let (u, v) = (
      Double(upright["originX"]!) + Double(upright["width"]!) / 2,
      Double(upright["originY"]!) + Double(upright["height"]!) / 2
    )
    let (x, y) = (
      Double(stored["originX"]!) + Double(stored["width"]!) / 2,
      Double(stored["originY"]!) + Double(stored["height"]!) / 2
    )
    #expect(abs(x - v) < 8 && abs(y - (192 - u)) < 8, "stored centre (\(x), \(y)), upright (\(u), \(v))")
  }

  /// The text summary says when a file was turned, or its tag ignored.
  @Test func textSaysWhatWasApplied() throws {
    let turned = try CLI.run(["detect", Self.path("jpeg_6.jpg"), "--output", "text"])
    #expect(
      turned.stdout.hasPrefix(Self.path("jpeg_6.jpg") + " (turned upright: Exif orientation 6): 1 face"),
      "\(turned.stdout)")
    let ignored = try CLI.run(["analyze", Self.path("jpeg_6.jpg"), "--output", "text", "--ignore-exif"])
    #expect(ignored.stdout.hasPrefix(Self.path("jpeg_6.jpg") + " (Exif orientation 6 ignored): "), "\(ignored.stdout)")
    let plain = try CLI.run(["landmark", Self.path("jpeg_1.jpg"), "--output", "text"])
    #expect(plain.stdout.hasPrefix(Self.path("jpeg_1.jpg") + ": 1 face"), "\(plain.stdout)")
  }

  /// Malformed Exif is ignored without a fuss: the stored pixels, no tag, exit status 0.
  @Test func malformedExifIsIgnored() throws {
    let names = [
      "bad_truncated_ifd.jpg", "bad_offset_past_end.jpg", "bad_huge_entry_count.jpg", "bad_ifd_loop.jpg",
      "bad_wrong_type_long.jpg", "bad_crc.png",
    ]
    let run = try CLI.run(["detect", "--output", "json"] + names.map(Self.path))
    #expect(run.status == 0, "\(run.stderr)")
    for line in try run.jsonLines() {
      #expect(
        line["orientation"] as? String == "up" && line["exifOrientation"] is NSNull && line["width"] as? Int == 48,
        "\(line)")
    }
  }

  /// `landmark` and `analyze` report in the upright picture too, and `--annotate` draws on it.
  @Test func landmarkAndAnalyzeAreUpright() throws {
    let folder = NSTemporaryDirectory() + "visage-exif-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let reference = try Self.onlyLine(["landmark", Self.path("jpeg_1.jpg")])
    let line = try Self.onlyLine(["landmark", Self.path("jpeg_6.jpg"), "--annotate", folder + "/mesh.png"])
    let (a, b) = (
      try #require((reference["faceLandmarks"] as? [[[String: Double]]])?.first),
      try #require((line["faceLandmarks"] as? [[[String: Double]]])?.first)
    )
    let gap = zip(a, b).map { abs($0["x"]! - $1["x"]!) + abs($0["y"]! - $1["y"]!) }.reduce(0, +) / Double(a.count)
    #expect(a.count == 478 && gap < 0.01, "mean landmark gap \(gap)")
    let annotated = try MPImage(contentsOfFile: folder + "/mesh.png")
    #expect(annotated.width == 192 && annotated.height == 256)

    let frame = { (l: [String: Any]) in ((l["faces"] as? [[String: Any]])?.first?["frame"] as? [String: Double]) ?? [:]
    }
    let (f, g) = (
      frame(try Self.onlyLine(["analyze", Self.path("jpeg_1.jpg")])),
      frame(try Self.onlyLine(["analyze", Self.path("jpeg_6.jpg")]))
    )
    #expect(
      !f.isEmpty && ["x", "y", "width", "height"].allSatisfy { abs(f[$0]! - g[$0, default: 999]) < 3 }, "\(f) vs \(g)")
  }

  /// Path lists and JSON Lines records are turned upright as files on the command line are.
  @Test func pathListsAndRecordsHonourExif() throws {
    let listed = try Self.onlyLine(["detect", "--paths-from", "-"], stdin: Data((Self.path("jpeg_6.jpg") + "\n").utf8))
    #expect(listed["orientation"] as? String == "right" && listed["width"] as? Int == 192)
    let bytes = try Fixtures.bytes(atPath: Fixtures.repositoryRoot + "/" + Self.path("jpeg_6.jpg"))
    let record = try RecordInputTests.record(source: "sideways", data: bytes)
    for (flags, orientation, width) in [([String](), "right", 192), (["--ignore-exif"], "up", 256)] {
      let line = try Self.onlyLine(
        ["detect", "--input-format", "jsonl", "-"] + flags, stdin: Data((record + "\n").utf8))
      #expect(
        line["orientation"] as? String == orientation && line["exifOrientation"] as? Int == 6
          && line["width"] as? Int == width)
    }
  }
}
