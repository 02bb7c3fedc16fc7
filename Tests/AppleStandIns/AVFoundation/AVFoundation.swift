// A stand-in for Apple's AVFoundation, only so that the guide-style app code in
// Tests/AppleStandIns/GuideUsage typechecks on Linux (`.ci/typecheck-apple`; see
// docs/apple-platforms.md). Visage itself does not import AVFoundation. It declares exactly the
// symbols that code uses, with the Swift signatures Apple documents; nothing here is ever run.

@_exported import CoreMedia
@_exported import Foundation

/// https://developer.apple.com/documentation/avfoundation/avcapturedevice
open class AVCaptureDevice: NSObject {
  /// https://developer.apple.com/documentation/avfoundation/avcapturedevice/position-swift.enum
  public enum Position: Int {
    /// https://developer.apple.com/documentation/avfoundation/avcapturedevice/position-swift.enum/unspecified
    case unspecified = 0
    /// https://developer.apple.com/documentation/avfoundation/avcapturedevice/position-swift.enum/back
    case back = 1
    /// https://developer.apple.com/documentation/avfoundation/avcapturedevice/position-swift.enum/front
    case front = 2
  }
}
