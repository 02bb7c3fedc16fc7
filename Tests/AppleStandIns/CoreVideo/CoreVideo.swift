// swift-format-ignore-file: AlwaysUseLowerCamelCase
// A stand-in for Apple's CoreVideo, only so that Visage's Apple-only code typechecks on Linux
// (`.ci/typecheck-apple`; see docs/apple-platforms.md). It declares exactly the symbols that
// code uses, with the Swift signatures Apple documents; nothing here is ever run.

/// From MacTypes on Apple platforms (the Darwin module), which Linux lacks; CoreVideo's
/// signatures use it. https://developer.apple.com/documentation/kernel/ostype
public typealias OSType = UInt32

/// https://developer.apple.com/documentation/corevideo/cvreturn
public typealias CVReturn = Int32
/// https://developer.apple.com/documentation/corevideo/kcvreturnsuccess
public var kCVReturnSuccess: CVReturn { fatalError("stand-in") }

/// https://developer.apple.com/documentation/corevideo/cvbuffer
public final class CVBuffer {}
/// https://developer.apple.com/documentation/corevideo/cvimagebuffer
public typealias CVImageBuffer = CVBuffer
/// https://developer.apple.com/documentation/corevideo/cvpixelbuffer
public typealias CVPixelBuffer = CVImageBuffer

/// https://developer.apple.com/documentation/corevideo/cvpixelbufferlockflags
public struct CVPixelBufferLockFlags: OptionSet {
  /// https://developer.apple.com/documentation/corevideo/cvpixelbufferlockflags/rawvalue
  public let rawValue: UInt64
  /// https://developer.apple.com/documentation/corevideo/cvpixelbufferlockflags/init(rawvalue:)
  public init(rawValue: UInt64) { self.rawValue = rawValue }
  /// https://developer.apple.com/documentation/corevideo/cvpixelbufferlockflags/readonly
  public static var readOnly: CVPixelBufferLockFlags { fatalError("stand-in") }
}

// Pixel formats (imported from a C enum of OSType values, hence read-only globals).

/// https://developer.apple.com/documentation/corevideo/kcvpixelformattype_32bgra
public var kCVPixelFormatType_32BGRA: OSType { fatalError("stand-in") }
/// https://developer.apple.com/documentation/corevideo/kcvpixelformattype_32rgba
public var kCVPixelFormatType_32RGBA: OSType { fatalError("stand-in") }
/// https://developer.apple.com/documentation/corevideo/kcvpixelformattype_420ypcbcr8biplanarvideorange
public var kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange: OSType { fatalError("stand-in") }
/// https://developer.apple.com/documentation/corevideo/kcvpixelformattype_420ypcbcr8biplanarfullrange
public var kCVPixelFormatType_420YpCbCr8BiPlanarFullRange: OSType { fatalError("stand-in") }
/// https://developer.apple.com/documentation/corevideo/kcvpixelformattype_420ypcbcr8planar
public var kCVPixelFormatType_420YpCbCr8Planar: OSType { fatalError("stand-in") }
/// https://developer.apple.com/documentation/corevideo/kcvpixelformattype_420ypcbcr8planarfullrange
public var kCVPixelFormatType_420YpCbCr8PlanarFullRange: OSType { fatalError("stand-in") }

// Functions. Imported C functions may have their results ignored, hence @discardableResult.

/// https://developer.apple.com/documentation/corevideo/cvpixelbuffergetpixelformattype(_:)
@discardableResult
public func CVPixelBufferGetPixelFormatType(_ pixelBuffer: CVPixelBuffer) -> OSType { fatalError("stand-in") }

/// https://developer.apple.com/documentation/corevideo/cvpixelbufferlockbaseaddress(_:_:)
@discardableResult
public func CVPixelBufferLockBaseAddress(_ pixelBuffer: CVPixelBuffer, _ lockFlags: CVPixelBufferLockFlags)
  -> CVReturn
{ fatalError("stand-in") }

/// https://developer.apple.com/documentation/corevideo/cvpixelbufferunlockbaseaddress(_:_:)
@discardableResult
public func CVPixelBufferUnlockBaseAddress(_ pixelBuffer: CVPixelBuffer, _ unlockFlags: CVPixelBufferLockFlags)
  -> CVReturn
{ fatalError("stand-in") }

/// https://developer.apple.com/documentation/corevideo/cvpixelbuffergetwidth(_:)
@discardableResult
public func CVPixelBufferGetWidth(_ pixelBuffer: CVPixelBuffer) -> Int { fatalError("stand-in") }

/// https://developer.apple.com/documentation/corevideo/cvpixelbuffergetheight(_:)
@discardableResult
public func CVPixelBufferGetHeight(_ pixelBuffer: CVPixelBuffer) -> Int { fatalError("stand-in") }

/// https://developer.apple.com/documentation/corevideo/cvpixelbuffergetbaseaddress(_:)
@discardableResult
public func CVPixelBufferGetBaseAddress(_ pixelBuffer: CVPixelBuffer) -> UnsafeMutableRawPointer? {
  fatalError("stand-in")
}

/// https://developer.apple.com/documentation/corevideo/cvpixelbuffergetbytesperrow(_:)
@discardableResult
public func CVPixelBufferGetBytesPerRow(_ pixelBuffer: CVPixelBuffer) -> Int { fatalError("stand-in") }

/// https://developer.apple.com/documentation/corevideo/cvpixelbuffergetplanecount(_:)
@discardableResult
public func CVPixelBufferGetPlaneCount(_ pixelBuffer: CVPixelBuffer) -> Int { fatalError("stand-in") }

/// https://developer.apple.com/documentation/corevideo/cvpixelbuffergetbaseaddressofplane(_:_:)
@discardableResult
public func CVPixelBufferGetBaseAddressOfPlane(_ pixelBuffer: CVPixelBuffer, _ planeIndex: Int)
  -> UnsafeMutableRawPointer?
{ fatalError("stand-in") }

/// https://developer.apple.com/documentation/corevideo/cvpixelbuffergetbytesperrowofplane(_:_:)
@discardableResult
public func CVPixelBufferGetBytesPerRowOfPlane(_ pixelBuffer: CVPixelBuffer, _ planeIndex: Int) -> Int {
  fatalError("stand-in")
}

/// https://developer.apple.com/documentation/corevideo/cvpixelbuffergetheightofplane(_:_:)
@discardableResult
public func CVPixelBufferGetHeightOfPlane(_ pixelBuffer: CVPixelBuffer, _ planeIndex: Int) -> Int {
  fatalError("stand-in")
}
