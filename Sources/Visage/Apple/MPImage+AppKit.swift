// macOS only. Typechecked on Linux against Tests/AppleStandIns by .ci/typecheck-apple; see
// docs/apple-platforms.md. (Mac Catalyst can import AppKit but has no NSImage: it uses UIKit.)
#if canImport(AppKit) && !targetEnvironment(macCatalyst)
  import AppKit
  import CoreGraphics

  extension MPImage {
    /// Creates an image from an `NSImage` (MediaPipe has no macOS form): the `CGImage` AppKit
    /// gives for the image at its own size (`cgImage(forProposedRect: nil, context: nil,
    /// hints: nil)`, which picks the best representation), read as `init(cgImage:orientation:)`
    /// reads it.
    ///
    /// - Throws: `MPImageError.unreadableSource` if AppKit gives no `CGImage`, or an error of
    ///   `init(cgImage:orientation:)`.
    public init(nsImage: NSImage, orientation: Orientation = .up) throws {
      guard let cgImage = nsImage.cgImage(forProposedRect: nil, context: nil, hints: nil) else {
        throw MPImageError.unreadableSource("AppKit gives no CGImage for the NSImage")
      }
      try self.init(cgImage: cgImage, orientation: orientation)
    }
  }
#endif
