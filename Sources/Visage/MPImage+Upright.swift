extension MPImage {
  /// The picture as a viewer shows it: the stored pixels turned (and, for a mirrored
  /// orientation, flipped) as `orientation` says, with orientation `.up`. Its width and height
  /// are swapped for `.left`, `.right` and their mirrored forms.
  ///
  /// The result is the same picture as Pillow's `ImageOps.exif_transpose` gives for the Exif
  /// orientation of the same meaning (see `Orientation`). The tasks do not need it, since
  /// they turn their input as MediaPipe does and report positions in the stored pixels; it is
  /// for callers that want the pixels, or the positions, of the upright picture.
  public func applyingOrientation() -> MPImage {
    if orientation == .up { return self }
    let (w, h) = (width, height)
    let (outWidth, outHeight) = orientation.swapsSides ? (h, w) : (w, h)
    // The stored pixel (x, y) an output pixel (u, v) comes from is affine in u and v:
    // x = ax·u + bx·v + cx, y = ay·u + by·v + cy. So along an output row the stored index
    // moves by a fixed step, and the copy needs no per-pixel arithmetic.
    let (ax, bx, cx, ay, by, cy): (Int, Int, Int, Int, Int, Int) =
      switch orientation {
      case .up: (1, 0, 0, 0, 1, 0)
      case .upMirrored: (-1, 0, w - 1, 0, 1, 0)  // flipped left to right
      case .down: (-1, 0, w - 1, 0, -1, h - 1)  // turned half a turn
      case .downMirrored: (1, 0, 0, 0, -1, h - 1)  // flipped top to bottom
      case .right: (0, 1, 0, -1, 0, h - 1)  // turned a quarter clockwise
      case .left: (0, -1, w - 1, 1, 0, 0)  // turned a quarter counter-clockwise
      case .leftMirrored: (0, 1, 0, 1, 0, 0)  // transposed
      case .rightMirrored: (0, -1, w - 1, -1, 0, h - 1)  // transposed about the other diagonal
      }
    let stepU = 3 * (ay * w + ax)
    let stepV = 3 * (by * w + bx)
    let origin = 3 * (cy * w + cx)
    // A quarter turn reads the stored pixels down their columns; going tile by tile keeps the
    // stored rows a tile reads in cache.
    let tile = 64
    let out = [UInt8](unsafeUninitializedCapacity: width * height * 3) { upright, initialized in
      withPixels { stored in
        for v0 in stride(from: 0, to: outHeight, by: tile) {
          for u0 in stride(from: 0, to: outWidth, by: tile) {
            for v in v0..<min(v0 + tile, outHeight) {
              var s = origin + v * stepV + u0 * stepU
              var d = (v * outWidth + u0) * 3
              for _ in u0..<min(u0 + tile, outWidth) {
                upright[d] = stored[s]
                upright[d + 1] = stored[s + 1]
                upright[d + 2] = stored[s + 2]
                s += stepU
                d += 3
              }
            }
          }
        }
      }
      initialized = width * height * 3  // every output pixel is written once
    }
    // The size is that of a valid image with its sides swapped at most, so this cannot fail.
    var upright = try! MPImage(width: outWidth, height: outHeight, rgb: out)
    upright.focalLengthInPixels = focalLengthInPixels
    return upright
  }

  /// The same picture with no mirroring: for a mirrored orientation, the stored pixels flipped
  /// left to right and the orientation without the mirror (`.upMirrored` becomes `.up`,
  /// `.downMirrored` `.down`, `.leftMirrored` `.left`, `.rightMirrored` `.right`); otherwise
  /// the image itself. The tasks refuse mirrored orientations, as MediaPipe does, and accept
  /// the result.
  public func removingMirroring() -> MPImage {
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

extension MPImage.Orientation {
  /// Whether the upright picture's width is the stored height: for the quarter turns
  /// `.left`, `.right`, `.leftMirrored` and `.rightMirrored`.
  public var swapsSides: Bool {
    switch self {
    case .left, .right, .leftMirrored, .rightMirrored: true
    case .up, .down, .upMirrored, .downMirrored: false
    }
  }
}
