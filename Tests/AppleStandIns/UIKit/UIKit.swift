// A stand-in for Apple's UIKit, only so that Visage's Apple-only code typechecks on Linux
// (`.ci/typecheck-apple`; see docs/apple-platforms.md). It declares exactly the symbols that
// code uses, with the Swift signatures Apple documents; nothing here is ever run.

@_exported import CoreGraphics
@_exported import Foundation

/// https://developer.apple.com/documentation/uikit/uiimage
open class UIImage: NSObject {
  /// https://developer.apple.com/documentation/uikit/uiimage/cgimage
  open var cgImage: CGImage? { fatalError("stand-in") }
  /// https://developer.apple.com/documentation/uikit/uiimage/imageorientation
  open var imageOrientation: UIImage.Orientation { fatalError("stand-in") }

  /// https://developer.apple.com/documentation/uikit/uiimage/orientation (an `NS_ENUM`, open to
  /// new cases: the stand-ins are built with library evolution so that a switch over it needs
  /// `@unknown default`, as with the real one).
  public enum Orientation: Int {
    /// https://developer.apple.com/documentation/uikit/uiimage/orientation/up
    case up = 0
    /// https://developer.apple.com/documentation/uikit/uiimage/orientation/down
    case down = 1
    /// https://developer.apple.com/documentation/uikit/uiimage/orientation/left
    case left = 2
    /// https://developer.apple.com/documentation/uikit/uiimage/orientation/right
    case right = 3
    /// https://developer.apple.com/documentation/uikit/uiimage/orientation/upmirrored
    case upMirrored = 4
    /// https://developer.apple.com/documentation/uikit/uiimage/orientation/downmirrored
    case downMirrored = 5
    /// https://developer.apple.com/documentation/uikit/uiimage/orientation/leftmirrored
    case leftMirrored = 6
    /// https://developer.apple.com/documentation/uikit/uiimage/orientation/rightmirrored
    case rightMirrored = 7
  }
}

/// https://developer.apple.com/documentation/uikit/uideviceorientation (an `NS_ENUM`).
public enum UIDeviceOrientation: Int {
  /// https://developer.apple.com/documentation/uikit/uideviceorientation/unknown
  case unknown = 0
  /// https://developer.apple.com/documentation/uikit/uideviceorientation/portrait
  case portrait = 1
  /// https://developer.apple.com/documentation/uikit/uideviceorientation/portraitupsidedown
  case portraitUpsideDown = 2
  /// https://developer.apple.com/documentation/uikit/uideviceorientation/landscapeleft
  case landscapeLeft = 3
  /// https://developer.apple.com/documentation/uikit/uideviceorientation/landscaperight
  case landscapeRight = 4
  /// https://developer.apple.com/documentation/uikit/uideviceorientation/faceup
  case faceUp = 5
  /// https://developer.apple.com/documentation/uikit/uideviceorientation/facedown
  case faceDown = 6
}

/// https://developer.apple.com/documentation/uikit/uidevice
open class UIDevice: NSObject {
  /// https://developer.apple.com/documentation/uikit/uidevice/current
  open class var current: UIDevice { fatalError("stand-in") }
  /// https://developer.apple.com/documentation/uikit/uidevice/orientation
  open var orientation: UIDeviceOrientation { fatalError("stand-in") }
}
