import Foundation
import Testing
import Visage
import VisageTestSupport

/// `Tests/Fixtures/yuv/`, written by `Tools/make_yuv_fixtures.py`: YUV 4:2:0 frames (padded
/// planes as cameras hand them over) and the RGB each must become: OpenCV's `cvtColor` for
/// video range, the full-range BT.601 formula in double precision for full range.
struct YUVFixture: Decodable, Sendable, CustomTestStringConvertible {
  struct Plane: Decodable, Sendable {
    var offset: Int
    var length: Int
    var bytesPerRow: Int
  }

  var name: String
  var width: Int
  var height: Int
  var layout: String
  var range: String
  var planes: [Plane]

  var testDescription: String { name }

  /// The largest per-channel difference allowed: none for video range (OpenCV's arithmetic
  /// exactly), one level for full range (20-bit fixed point against double precision).
  var tolerance: Int { range == "video" ? 0 : 1 }

  /// Whether the planes follow one another with no padding, in the layout's standard order:
  /// then the frame can also be given as one buffer.
  var isTight: Bool {
    let chromaWidth = (width + 1) / 2
    let rows = [width] + (layout == "i420" ? [chromaWidth, chromaWidth] : [2 * chromaWidth])
    return zip(planes, rows).allSatisfy { $0.bytesPerRow == $1 }
      && zip(planes, planes.dropFirst()).allSatisfy { $0.offset + $0.length == $1.offset }
  }

  static let all: [YUVFixture] = {
    struct Index: Decodable { var frames: [YUVFixture] }
    guard let data = FileManager.default.contents(atPath: Fixtures.fixturePath("yuv/index.json")) else { return [] }
    return (try? JSONDecoder().decode(Index.self, from: data).frames) ?? []
  }()

  func bytes(_ suffix: String) throws -> [UInt8] {
    try Fixtures.bytes(atPath: Fixtures.fixturePath("yuv/\(name).\(suffix)"))
  }

  /// The frame converted through `MPImage(width:height:layout:range:planes:)`.
  func image(_ yuv: [UInt8]) throws -> MPImage {
    try yuv.withUnsafeBytes { all in
      try MPImage(
        width: width, height: height, layout: MPImage.YUVLayout(rawValue: layout)!,
        range: MPImage.YUVRange(rawValue: range)!,
        planes: planes.map {
          MPImage.Plane(
            bytes: UnsafeRawBufferPointer(rebasing: all[$0.offset..<$0.offset + $0.length]), bytesPerRow: $0.bytesPerRow
          )
        })
    }
  }
}

/// The largest difference between two equally long byte arrays (Int.max if lengths differ).
private func largestDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
  guard a.count == b.count else { return .max }
  return zip(a, b).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
}

@Suite struct MPImageYUVTests {
  @Test func fixturesLoad() {
    #expect(YUVFixture.all.count == 48, "Tests/Fixtures/yuv/index.json is missing or unreadable")
  }

  @Test(arguments: YUVFixture.all)
  func matchesOpenCV(_ fixture: YUVFixture) throws {
    let yuv = try fixture.bytes("yuv")
    let expected = try fixture.bytes("rgb")
    let image = try fixture.image(yuv)
    #expect(image.width == fixture.width && image.height == fixture.height)
    let difference = largestDifference(image.pixels, expected)
    #expect(difference <= fixture.tolerance, "\(fixture.name): largest difference \(difference)")
    if fixture.isTight {
      let packed = try MPImage(
        width: fixture.width, height: fixture.height, layout: MPImage.YUVLayout(rawValue: fixture.layout)!,
        range: MPImage.YUVRange(rawValue: fixture.range)!, bytes: yuv, orientation: .left)
      #expect(packed.pixels == image.pixels)
      #expect(packed.orientation == .left)
    }
  }

  /// Every kind of bad frame is an error, never a crash or a read outside the buffers.
  @Test func badFramesAreErrors() throws {
    let frame = [UInt8](repeating: 128, count: 64)
    try frame.withUnsafeBytes { all in
      func plane(_ count: Int, _ bytesPerRow: Int) -> MPImage.Plane {
        MPImage.Plane(bytes: UnsafeRawBufferPointer(rebasing: all[0..<count]), bytesPerRow: bytesPerRow)
      }
      // 5x3: Y is 5 x 3, chroma 3 x 2 samples (6 bytes a row interleaved).
      #expect(throws: MPImageError.planeSize(plane: "Y", expected: 15, actual: 14)) {
        try MPImage(width: 5, height: 3, layout: .nv12, planes: [plane(14, 5), plane(12, 6)])
      }
      #expect(throws: MPImageError.planeSize(plane: "VU", expected: 14, actual: 13)) {
        try MPImage(width: 5, height: 3, layout: .nv21, planes: [plane(15, 5), plane(13, 8)])
      }
      #expect(throws: MPImageError.planeRowStride(plane: "UV", bytesPerRow: 5, minimum: 6)) {
        try MPImage(width: 5, height: 3, layout: .nv12, planes: [plane(15, 5), plane(12, 5)])
      }
      #expect(throws: MPImageError.planeRowStride(plane: "Y", bytesPerRow: -5, minimum: 5)) {
        try MPImage(width: 5, height: 3, layout: .i420, planes: [plane(15, -5), plane(6, 3), plane(6, 3)])
      }
      #expect(throws: MPImageError.planeRowStride(plane: "V", bytesPerRow: 2, minimum: 3)) {
        try MPImage(width: 5, height: 3, layout: .i420, planes: [plane(15, 5), plane(6, 3), plane(6, 2)])
      }
      #expect(throws: MPImageError.planeCount(layout: .nv12, actual: 3)) {
        try MPImage(width: 5, height: 3, layout: .nv12, planes: [plane(15, 5), plane(6, 3), plane(6, 3)])
      }
      #expect(throws: MPImageError.planeCount(layout: .i420, actual: 2)) {
        try MPImage(width: 5, height: 3, layout: .i420, planes: [plane(15, 5), plane(12, 6)])
      }
      #expect(throws: MPImageError.planeCount(layout: .i420, actual: 0)) {
        try MPImage(width: 5, height: 3, layout: .i420, planes: [])
      }
      #expect(throws: MPImageError.dimensions(width: 0, height: 3)) {
        try MPImage(width: 0, height: 3, layout: .nv12, planes: [plane(15, 5), plane(12, 6)])
      }
      #expect(throws: MPImageError.dimensions(width: 4, height: -2)) {
        try MPImage(width: 4, height: -2, layout: .nv21, planes: [plane(15, 5), plane(12, 6)])
      }
      // A stride whose rows overflow Int, and a plane with no bytes at all.
      #expect(throws: MPImageError.planeSize(plane: "U", expected: .max, actual: 6)) {
        try MPImage(width: 5, height: 3, layout: .i420, planes: [plane(15, 5), plane(6, .max), plane(6, 3)])
      }
      #expect(throws: MPImageError.planeSize(plane: "Y", expected: 15, actual: 0)) {
        try MPImage(
          width: 5, height: 3, layout: .nv12,
          planes: [MPImage.Plane(bytes: UnsafeRawBufferPointer(start: nil, count: 0), bytesPerRow: 5), plane(12, 6)])
      }
    }
    // One buffer: exactly Y then chroma, ceil(w/2) x ceil(h/2) samples each.
    #expect(throws: MPImageError.bufferSize(expected: 27, actual: 26)) {
      try MPImage(width: 5, height: 3, layout: .i420, bytes: [UInt8](repeating: 0, count: 26))
    }
    #expect(throws: MPImageError.bufferSize(expected: 27, actual: 28)) {
      try MPImage(width: 5, height: 3, layout: .nv12, range: .full, bytes: [UInt8](repeating: 0, count: 28))
    }
    #expect(throws: MPImageError.dimensions(width: 0, height: 0)) {
      try MPImage(width: 0, height: 0, layout: .nv21, bytes: [])
    }
  }

  @Test func errorsNameThePlane() {
    #expect(
      MPImageError.planeCount(layout: .nv21, actual: 3).description == "a nv21 frame has 2 planes (Y, VU); got 3")
    #expect(
      MPImageError.planeRowStride(plane: "UV", bytesPerRow: 5, minimum: 6).description
        == "the UV plane's bytesPerRow 5 is smaller than one row of its samples (6 bytes)")
    #expect(
      MPImageError.planeSize(plane: "Y", expected: 15, actual: 14).description
        == "the Y plane holds 14 bytes; its rows need 15")
  }

  /// Mid-gray in both ranges, white and black at the video range's ends.
  @Test func grayLevels() throws {
    let gray = try MPImage(width: 3, height: 1, layout: .nv12, range: .full, bytes: [0, 128, 255, 128, 128, 128, 128])
    #expect(gray.pixels == [0, 0, 0, 128, 128, 128, 255, 255, 255])
    let video = try MPImage(width: 2, height: 2, layout: .i420, bytes: [16, 235, 126, 0, 128, 128])
    #expect(video.pixels == [0, 0, 0, 255, 255, 255, 128, 128, 128, 0, 0, 0])
  }
}
