// swift-format-ignore-file: AlwaysUseLowerCamelCase
// A stand-in for Apple's CoreGraphics, only so that Visage's Apple-only code typechecks on
// Linux (`.ci/typecheck-apple`; see docs/apple-platforms.md). It declares exactly the symbols
// that code uses, with the Swift signatures Apple documents; nothing here is ever run.
//
// CGFloat, CGRect, CGPoint and CGSize come from Foundation on Linux, so they are re-exported
// rather than declared; the CF types (CFData, ...) are the real ones of the toolchain's
// CoreFoundation module.

@_exported import CoreFoundation
@_exported import Foundation

/// https://developer.apple.com/documentation/coregraphics/cgimage
public final class CGImage {
  /// https://developer.apple.com/documentation/coregraphics/cgimage/width
  public var width: Int { fatalError("stand-in") }
  /// https://developer.apple.com/documentation/coregraphics/cgimage/height
  public var height: Int { fatalError("stand-in") }

  /// https://developer.apple.com/documentation/coregraphics/cgimage/init(width:height:bitspercomponent:bitsperpixel:bytesperrow:space:bitmapinfo:provider:decode:shouldinterpolate:intent:)
  public init?(
    width: Int, height: Int, bitsPerComponent: Int, bitsPerPixel: Int, bytesPerRow: Int, space: CGColorSpace,
    bitmapInfo: CGBitmapInfo, provider: CGDataProvider, decode: UnsafePointer<CGFloat>?, shouldInterpolate: Bool,
    intent: CGColorRenderingIntent
  ) { fatalError("stand-in") }
}

/// https://developer.apple.com/documentation/coregraphics/cgcolorspace
public final class CGColorSpace {}

/// https://developer.apple.com/documentation/coregraphics/cgcolorspacecreatedevicergb()
public func CGColorSpaceCreateDeviceRGB() -> CGColorSpace { fatalError("stand-in") }

/// https://developer.apple.com/documentation/coregraphics/cgcontext
public final class CGContext {
  /// The `UInt32` form: https://developer.apple.com/documentation/coregraphics/cgcontext/init(data:width:height:bitspercomponent:bytesperrow:space:bitmapinfo:)-4fkaf
  /// (Apple's newest SDKs deprecate it for a `CGBitmapInfo` form, -10b3i, which older SDKs lack.)
  public init?(
    data: UnsafeMutableRawPointer?, width: Int, height: Int, bitsPerComponent: Int, bytesPerRow: Int,
    space: CGColorSpace, bitmapInfo: UInt32
  ) { fatalError("stand-in") }

  /// https://developer.apple.com/documentation/coregraphics/cgcontext/draw(_:in:bytiling:)
  public func draw(_ image: CGImage, in rect: CGRect, byTiling: Bool = false) { fatalError("stand-in") }
}

/// https://developer.apple.com/documentation/coregraphics/cgimagealphainfo
public enum CGImageAlphaInfo: UInt32 {
  /// https://developer.apple.com/documentation/coregraphics/cgimagealphainfo/none
  case none = 0
  /// https://developer.apple.com/documentation/coregraphics/cgimagealphainfo/premultipliedlast
  case premultipliedLast = 1
}

/// https://developer.apple.com/documentation/coregraphics/cgbitmapinfo
public struct CGBitmapInfo: OptionSet {
  /// https://developer.apple.com/documentation/coregraphics/cgbitmapinfo/rawvalue
  public let rawValue: UInt32
  /// https://developer.apple.com/documentation/coregraphics/cgbitmapinfo/init(rawvalue:)
  public init(rawValue: UInt32) { self.rawValue = rawValue }
  /// https://developer.apple.com/documentation/coregraphics/cgbitmapinfo/byteorder32big
  public static var byteOrder32Big: CGBitmapInfo { fatalError("stand-in") }
}

/// https://developer.apple.com/documentation/coregraphics/cgcolorrenderingintent
public enum CGColorRenderingIntent: Int32 {
  /// https://developer.apple.com/documentation/coregraphics/cgcolorrenderingintent/defaultintent
  case defaultIntent = 0
}

/// https://developer.apple.com/documentation/coregraphics/cgdataprovider
public final class CGDataProvider {
  /// https://developer.apple.com/documentation/coregraphics/cgdataprovider/init(data:)
  public init?(data: CFData) { fatalError("stand-in") }
}
