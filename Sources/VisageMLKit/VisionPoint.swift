import Foundation

/// A point in an image, in pixels of the upright picture: ML Kit's `VisionPoint`.
///
/// Immutable, so it may cross threads: `@unchecked` only because a class open to a subclass
/// (`Vision3DPoint`) cannot be checked.
// Safe: immutable; unchecked only because a class open to subclasses cannot be checked.
public class VisionPoint: CustomStringConvertible, @unchecked Sendable {
  /// The horizontal position, from the left edge.
  public let x: CGFloat
  /// The vertical position, from the top edge.
  public let y: CGFloat

  init(x: CGFloat, y: CGFloat) {
    self.x = x
    self.y = y
  }

  /// `(x, y)`, or `(x, y, z)` for a 3D point.
  public var description: String { "(\(x), \(y))" }
}

/// A point with depth: ML Kit's `Vision3DPoint`. Landmarks and contour points are these.
// Safe: immutable, as its superclass; a subclass of an unchecked class must restate it.
public final class Vision3DPoint: VisionPoint, @unchecked Sendable {
  /// Depth, on the scale of `x`: smaller is nearer the camera; the face mesh's depth, about
  /// zero at the centre of the head.
  public let z: CGFloat

  init(x: CGFloat, y: CGFloat, z: CGFloat) {
    self.z = z
    super.init(x: x, y: y)
  }

  public override var description: String { "(\(x), \(y), \(z))" }
}
