// swift-format-ignore-file: AlwaysUseLowerCamelCase
// A stand-in for Apple's ImageIO, only so that VisageImageIO's Apple code path typechecks on
// Linux (`.ci/typecheck-apple`; see docs/apple-platforms.md). It declares exactly the symbols
// that code uses, with the Swift signatures Apple documents; nothing here is ever run. CFData,
// CFMutableData, CFString and CFDictionary are the toolchain's real CoreFoundation types.

@_exported import CoreFoundation
@_exported import CoreGraphics

/// https://developer.apple.com/documentation/imageio/cgimagesource
public final class CGImageSource {}

/// https://developer.apple.com/documentation/imageio/cgimagesourcestatus
/// (raw values as in CGImageSource.h).
public enum CGImageSourceStatus: Int32 {
  /// https://developer.apple.com/documentation/imageio/cgimagesourcestatus/statusunexpectedeof
  case statusUnexpectedEOF = -5
  /// https://developer.apple.com/documentation/imageio/cgimagesourcestatus/statusinvaliddata
  case statusInvalidData = -4
  /// https://developer.apple.com/documentation/imageio/cgimagesourcestatus/statusunknowntype
  case statusUnknownType = -3
  /// https://developer.apple.com/documentation/imageio/cgimagesourcestatus/statusincomplete
  case statusIncomplete = -1
}

/// https://developer.apple.com/documentation/imageio/cgimagesourcecreatewithdata(_:_:)
@discardableResult
public func CGImageSourceCreateWithData(_ data: CFData, _ options: CFDictionary?) -> CGImageSource? {
  fatalError("stand-in")
}

/// https://developer.apple.com/documentation/imageio/cgimagesourcegetstatusatindex(_:_:)
@discardableResult
public func CGImageSourceGetStatusAtIndex(_ isrc: CGImageSource, _ index: Int) -> CGImageSourceStatus {
  fatalError("stand-in")
}

/// https://developer.apple.com/documentation/imageio/cgimagesourcecreateimageatindex(_:_:_:)
@discardableResult
public func CGImageSourceCreateImageAtIndex(_ isrc: CGImageSource, _ index: Int, _ options: CFDictionary?)
  -> CGImage?
{ fatalError("stand-in") }

/// https://developer.apple.com/documentation/imageio/cgimagedestination
public final class CGImageDestination {}

/// https://developer.apple.com/documentation/imageio/cgimagedestinationcreatewithdata(_:_:_:_:)
@discardableResult
public func CGImageDestinationCreateWithData(
  _ data: CFMutableData, _ type: CFString, _ count: Int, _ options: CFDictionary?
) -> CGImageDestination? { fatalError("stand-in") }

/// https://developer.apple.com/documentation/imageio/cgimagedestinationaddimage(_:_:_:)
public func CGImageDestinationAddImage(_ idst: CGImageDestination, _ image: CGImage, _ properties: CFDictionary?) {
  fatalError("stand-in")
}

/// https://developer.apple.com/documentation/imageio/cgimagedestinationfinalize(_:)
@discardableResult
public func CGImageDestinationFinalize(_ idst: CGImageDestination) -> Bool { fatalError("stand-in") }
