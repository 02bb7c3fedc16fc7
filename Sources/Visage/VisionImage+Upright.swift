extension VisionImage {
  /// The picture as a viewer shows it: the stored pixels turned (and, for a mirrored
  /// orientation, flipped) as `orientation` says, with orientation `.up`. Its width and height
  /// are swapped for `.left`, `.right` and their mirrored forms.
  ///
  /// The result is the same picture as Pillow's `ImageOps.exif_transpose` gives for the Exif
  /// orientation of the same meaning (see `Orientation`). The tasks do not need it, since
  /// they turn their input as MediaPipe does and report positions in the stored pixels; it is
  /// for callers that want the pixels, or the positions, of the upright picture.
  public func applyingOrientation() -> VisionImage {
    if orientation == .up { return self }
    let (w, h) = (width, height)
    let turned = orientation.swapsSides
    let (outWidth, outHeight) = turned ? (h, w) : (w, h)
    // For each output pixel (u, v), the stored pixel (x, y) it comes from.
    let source: (Int, Int) -> (Int, Int) =
      switch orientation {
      case .up: { u, v in (u, v) }
      case .upMirrored: { u, v in (w - 1 - u, v) }
      case .down: { u, v in (w - 1 - u, h - 1 - v) }
      case .downMirrored: { u, v in (u, h - 1 - v) }
      case .right: { u, v in (v, h - 1 - u) }  // turned a quarter clockwise
      case .left: { u, v in (w - 1 - v, u) }  // turned a quarter counter-clockwise
      case .leftMirrored: { u, v in (v, u) }  // transposed
      case .rightMirrored: { u, v in (w - 1 - v, h - 1 - u) }  // transposed about the other diagonal
      }
    var out = [UInt8](repeating: 0, count: pixels.count)
    pixels.withUnsafeBufferPointer { stored in
      out.withUnsafeMutableBufferPointer { upright in
        for v in 0..<outHeight {
          for u in 0..<outWidth {
            let (x, y) = source(u, v)
            let s = (y * w + x) * 3, d = (v * outWidth + u) * 3
            upright[d] = stored[s]
            upright[d + 1] = stored[s + 1]
            upright[d + 2] = stored[s + 2]
          }
        }
      }
    }
    // The size is that of a valid image with its sides swapped at most, so this cannot fail.
    return try! VisionImage(width: outWidth, height: outHeight, rgb: out)
  }

  /// The same picture with no mirroring: for a mirrored orientation, the stored pixels flipped
  /// left to right and the orientation without the mirror (`.upMirrored` becomes `.up`,
  /// `.downMirrored` `.down`, `.leftMirrored` `.left`, `.rightMirrored` `.right`); otherwise
  /// the image itself. The tasks refuse mirrored orientations, as MediaPipe does, and accept
  /// the result.
  public func removingMirroring() -> VisionImage {
    let unmirrored: Orientation
    switch orientation {
    case .up, .down, .left, .right: return self
    case .upMirrored: unmirrored = .up
    case .downMirrored: unmirrored = .down
    case .leftMirrored: unmirrored = .left
    case .rightMirrored: unmirrored = .right
    }
    var flipping = self
    flipping.orientation = .upMirrored
    var flipped = flipping.applyingOrientation()
    flipped.orientation = unmirrored
    return flipped
  }
}

extension VisionImage.Orientation {
  /// Whether the upright picture's width is the stored height: for the quarter turns
  /// `.left`, `.right`, `.leftMirrored` and `.rightMirrored`.
  public var swapsSides: Bool {
    switch self {
    case .left, .right, .leftMirrored, .rightMirrored: true
    case .up, .down, .upMirrored, .downMirrored: false
    }
  }
}
