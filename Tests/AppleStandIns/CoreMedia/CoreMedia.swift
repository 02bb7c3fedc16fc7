// swift-format-ignore-file: AlwaysUseLowerCamelCase
// A stand-in for Apple's CoreMedia, only so that Visage's Apple-only code typechecks on Linux
// (`.ci/typecheck-apple`; see docs/apple-platforms.md). It declares exactly the symbols that
// code uses, with the Swift signatures Apple documents; nothing here is ever run.

@_exported import CoreVideo

/// https://developer.apple.com/documentation/coremedia/cmsamplebuffer
public final class CMSampleBuffer {}

/// https://developer.apple.com/documentation/coremedia/cmsamplebufferisvalid(_:)
@discardableResult
public func CMSampleBufferIsValid(_ sbuf: CMSampleBuffer) -> Bool { fatalError("stand-in") }

/// https://developer.apple.com/documentation/coremedia/cmsamplebuffergetimagebuffer(_:)
@discardableResult
public func CMSampleBufferGetImageBuffer(_ sbuf: CMSampleBuffer) -> CVImageBuffer? { fatalError("stand-in") }
