/// The overlapping square tiles the full-range model reads in an all-scales search, so that
/// small faces in large photos reach it big enough to be found (and the short-range model's
/// smaller tiles, `smallFaceTiles`, for the smallest faces).
///
/// The full-range model finds faces from about 13 px to about 100 px wide in its 192×192
/// input (`FaceSearchTests.crowdSubsetRecallAndFalsePositives` holds the search built on
/// that to its recall on faces from 20 px up). Level 0 tiles are 288 px, so a 20 px face
/// reaches the model 13.3 px wide; each further level doubles the tile, so the levels'
/// ranges overlap, until a tile would cover the image's long side, where the whole-image
/// passes take over. Neighbouring tiles overlap by a fifth of a tile: a face too large for
/// one level's tiles to hold whole is found by the next level, whose smallest face (13.3 px
/// at its scale, 40 px at level 1) is smaller than that overlap.
struct SearchTile: Equatable {
  /// Pixel bounds in the stored image; a tile may reach past the edges of an image smaller
  /// than itself (the model sees black there, as in the whole-image letterbox).
  var x0: Int, y0: Int, side: Int

  /// The side of a level-0 tile, in image pixels.
  static let baseSide = 288

  /// Every tile of every level for an image of the given size, finest level first; none
  /// for an image whose long side is at most `baseSide`.
  ///
  /// A level whose smallest face (13.3 px of the model's 192, about a fourteenth of a tile) is
  /// wider than the image's short side can find no face in it and is left out: a 1×32768
  /// image would otherwise take 283 tiles a turn, in 7.6 s with any rotation.
  static func tiles(imageWidth: Int, imageHeight: Int) -> [SearchTile] {
    var tiles: [SearchTile] = []
    var side = baseSide
    while side < max(imageWidth, imageHeight) && side * 133 <= min(imageWidth, imageHeight) * 1920 {
      tiles += grid(side: side, overlap: side / 5, imageWidth: imageWidth, imageHeight: imageHeight)
      side *= 2
    }
    return tiles
  }

  /// The side of the tiles the short-range model reads for the smallest faces, in image
  /// pixels: a 20 px face fills 18% of one, seen 23 px wide in the model's 128 px input.
  ///
  /// The full-range model's finest tiles show a 20-30 px face only 13-20 px wide, where
  /// it gives many no candidate at all (so no look); these tiles give them one. (112 rather
  /// than 128, which the model would read pixel for pixel: in a one-off comparison on the four
  /// crowd sets of `Benchmarks/crowd_recall.py`, 112 found one face more, for about 3% more
  /// time.)
  static let smallFaceSide = 112

  /// The smallest face the search is built to find, in image pixels.
  static let smallestFace = 20

  /// The short-range model's tiles for an image of the given size; none for an image whose
  /// long side is at most `smallFaceSide`, which the whole-image pass reads as closely, or
  /// whose short side is under `smallestFace`, which no face the search is for fits across.
  ///
  /// Neighbours overlap by a quarter of a tile, so every face up to about 26 px is whole in
  /// one; a larger face is the full-range model's finest level's, whose tiles show a 30 px
  /// face 20 px wide.
  static func smallFaceTiles(imageWidth: Int, imageHeight: Int) -> [SearchTile] {
    guard max(imageWidth, imageHeight) > smallFaceSide, min(imageWidth, imageHeight) >= smallestFace else { return [] }
    return grid(side: smallFaceSide, overlap: smallFaceSide / 4, imageWidth: imageWidth, imageHeight: imageHeight)
  }

  /// Tiles of one side covering the image, neighbours sharing at least `overlap` pixels.
  static func grid(side: Int, overlap: Int, imageWidth: Int, imageHeight: Int) -> [SearchTile] {
    starts(length: imageHeight, side: side, overlap: overlap).flatMap { y in
      starts(length: imageWidth, side: side, overlap: overlap).map { x in SearchTile(x0: x, y0: y, side: side) }
    }
  }

  /// Tile origins along one axis, spread evenly from edge to edge with at least `overlap`
  /// pixels shared by neighbours; one centred tile when the axis is no longer than a tile.
  static func starts(length: Int, side: Int, overlap: Int) -> [Int] {
    guard length > side else { return [(length - side) / 2] }
    let count = (length - overlap + (side - overlap) - 1) / (side - overlap)
    let span = length - side
    return (0..<count).map { i in count == 1 ? 0 : i * span / (count - 1) }
  }

  /// The tile as the region a detector reads, seen through a clockwise turn of `degrees`
  /// (a multiple of 90; the tile is square in pixels, so it covers the same pixels).
  func rect(rotationDegrees degrees: Int, imageWidth: Int, imageHeight: Int) -> NormalizedRect {
    let (w, h) = (Float(imageWidth), Float(imageHeight))
    return NormalizedRect(
      xCenter: (Float(x0) + Float(side) / 2) / w, yCenter: (Float(y0) + Float(side) / 2) / h,
      width: Float(side) / w, height: Float(side) / h, rotation: Float(-Double(degrees) * Double.pi / 180))
  }

  /// Whether a detection (normalized image coordinates) lies wholly inside the tile, away
  /// from every edge that is not also the image's: a face the tile cuts gives a partial box,
  /// and a tile or level that holds the whole face reports it instead.
  func holds(_ d: RawDetection, imageWidth: Int, imageHeight: Int) -> Bool {
    let (w, h) = (Float(imageWidth), Float(imageHeight))
    let margin = Float(side) / 72
    let (left, top) = (d.xmin * w, d.ymin * h)
    let (right, bottom) = ((d.xmin + d.width) * w, (d.ymin + d.height) * h)
    let x1 = x0 + side
    let y1 = y0 + side
    return (x0 <= 0 || left >= Float(x0) + margin) && (y0 <= 0 || top >= Float(y0) + margin)
      && (x1 >= imageWidth || right <= Float(x1) - margin) && (y1 >= imageHeight || bottom <= Float(y1) - margin)
  }
}
