import Foundation
import Testing
import Visage
import VisageTestSupport

/// `MPImage.withBorrowedPixels`: an image over the caller's bytes gives what a copy gives, in
/// every running mode; a live-stream task copies it before keeping it.
struct BorrowedPixelsTests {
  static let astronaut = FaceDetectorAPITests.astronaut

  static func landmarker(_ mode: RunningMode) throws -> FaceLandmarker {
    let options = FaceLandmarkerOptions(
      baseOptions: BaseOptions(modelAssetPath: BundledModel.taskBundlePath), runningMode: mode,
      outputFaceBlendshapes: true)
    if mode == .liveStream { options.liveStreamHandler = { _, _, _ in } }
    return try FaceLandmarker(options: options)
  }

  @Test func borrowedGivesWhatOwnedGives() throws {
    let owned = Self.astronaut
    let (image, video) = (try Self.landmarker(.image), try Self.landmarker(.video))
    let expected = try image.detect(image: owned)
    let bytes = owned.pixels
    try bytes.withUnsafeBufferPointer { buffer in
      try MPImage.withBorrowedPixels(width: owned.width, height: owned.height, rgb: buffer) { borrowed in
        let still = try image.detect(image: borrowed)
        let frame = try video.detect(videoFrame: borrowed, timestampInMilliseconds: 0)
        let crops = try [borrowed, owned].map { try $0.alignedFaceCrop(landmarks: expected.faceLandmarks[0]).pixels }
        #expect(borrowed.pixels == owned.pixels)
        #expect(still == expected && frame.faceLandmarks == expected.faceLandmarks && crops[0] == crops[1])
      }
    }
    // Stored turned: the task reads the borrowed pixels through the turn too.
    let sideways = try MPImage(width: owned.width, height: owned.height, rgb: owned.pixels, orientation: .right)
    let turned = try Self.landmarker(.image).detect(image: sideways)
    try bytes.withUnsafeBufferPointer { buffer in
      try MPImage.withBorrowedPixels(width: owned.width, height: owned.height, rgb: buffer, orientation: .right) {
        let result = try Self.landmarker(.image).detect(image: $0)
        #expect(result == turned)
      }
    }
  }

  @Test func liveStreamCopiesABorrowedFrame() throws {
    let owned = Self.astronaut
    let results = Locked<[FaceLandmarkerResult]>([])
    let options = FaceLandmarkerOptions(
      baseOptions: BaseOptions(modelAssetPath: BundledModel.taskBundlePath), runningMode: .liveStream)
    options.liveStreamHandler = { result, _, _ in if let result { results.mutate { $0.append(result) } } }
    let live = try FaceLandmarker(options: options)
    var bytes = owned.pixels
    try bytes.withUnsafeBufferPointer { buffer in
      try MPImage.withBorrowedPixels(width: owned.width, height: owned.height, rgb: buffer) {
        try live.detectAsync(image: $0, timestampInMilliseconds: 0)
      }
    }
    // The caller's buffer is overwritten before the frame is processed (or while): the task
    // must have its own copy.
    for i in bytes.indices { bytes[i] = 0 }
    live.waitUntilIdle()
    let expected = try Self.landmarker(.image).detect(image: owned)
    #expect(results.value.map(\.faceLandmarks) == [expected.faceLandmarks])
  }

  @Test func badBorrowedBuffersAreErrors() {
    let bytes = [UInt8](repeating: 0, count: 12)
    bytes.withUnsafeBufferPointer { buffer in
      #expect(throws: MPImageError.bufferSize(expected: 27, actual: 12)) {
        try MPImage.withBorrowedPixels(width: 3, height: 3, rgb: buffer) { _ in }
      }
      #expect(throws: MPImageError.dimensions(width: 0, height: 4)) {
        try MPImage.withBorrowedPixels(width: 0, height: 4, rgb: buffer) { _ in }
      }
    }
  }
}
