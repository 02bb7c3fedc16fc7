// A stand-in for Apple's AppKit, only so that Visage's Apple-only code typechecks on Linux
// (`.ci/typecheck-apple`; see docs/apple-platforms.md). It declares exactly the symbols that
// code uses, with the Swift signatures Apple documents; nothing here is ever run. NSRect is
// Foundation's (a CGRect) on Linux as on Apple platforms.

@_exported import CoreGraphics
@_exported import Foundation

/// https://developer.apple.com/documentation/appkit/nsimage
open class NSImage: NSObject {
  /// https://developer.apple.com/documentation/appkit/nsimage/cgimage(forproposedrect:context:hints:)
  open func cgImage(
    forProposedRect proposedDestRect: UnsafeMutablePointer<NSRect>?, context referenceContext: NSGraphicsContext?,
    hints: [NSImageRep.HintKey: Any]?
  ) -> CGImage? { fatalError("stand-in") }
}

/// https://developer.apple.com/documentation/appkit/nsgraphicscontext
open class NSGraphicsContext: NSObject {}

/// https://developer.apple.com/documentation/appkit/nsimagerep
open class NSImageRep: NSObject {
  /// https://developer.apple.com/documentation/appkit/nsimagerep/hintkey
  public struct HintKey: Hashable, RawRepresentable, Sendable {
    /// https://developer.apple.com/documentation/appkit/nsimagerep/hintkey/rawvalue
    public let rawValue: String
    /// https://developer.apple.com/documentation/appkit/nsimagerep/hintkey/init(rawvalue:)
    public init(rawValue: String) { self.rawValue = rawValue }
  }
}
