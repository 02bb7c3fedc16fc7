// The C ABI that `visage/_native.py` loads with ctypes. Every function that can fail returns a
// `CStatus` and, on failure, stores a message in `*error` that the caller frees with
// `visage_free`. Handles are opaque pointers: a task from `visage_task_create`, released by
// `visage_task_close`; a result table from `visage_task_run` or the live-stream callback,
// released by `visage_result_free`. Nothing here keeps a pointer it was given past the call.
import Foundation
import Visage
import VisageImageIO

public typealias ErrorOut = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?

@_cdecl("visage_free")
public func visageFree(_ pointer: UnsafeMutableRawPointer?) { free(pointer) }

/// Creates a task from its options as JSON (`TaskConfiguration`).
@_cdecl("visage_task_create")
public func visageTaskCreate(
  _ json: UnsafePointer<CChar>, _ callback: LiveStreamCallback?, _ context: UnsafeMutableRawPointer?,
  _ handle: UnsafeMutablePointer<UnsafeMutableRawPointer?>, _ error: ErrorOut
) -> Int32 {
  guarded(error) {
    let configuration = try TaskConfiguration.decode(String(cString: json))
    let task = try TaskHandle(configuration: configuration, callback: callback, context: context)
    handle.pointee = Unmanaged.passRetained(task).toOpaque()
  }
}

/// Runs a task on pixels with `channels` bytes per pixel (1 gray, 3 RGB, 4 RGBA) and rows
/// `rowBytes` apart, stored turned by `rotation` degrees as MediaPipe's `rotation_degrees`
/// says. `regions` holds `regionCount` face regions of five floats (x, y, width, height in
/// pixels, rotation in degrees) for the landmarker, or is null. `*result` is null in
/// live-stream mode.
@_cdecl("visage_task_run")
public func visageTaskRun(
  _ handle: UnsafeMutableRawPointer, _ mode: Int32, _ pixels: UnsafeRawPointer?, _ byteCount: Int64,
  _ width: Int64, _ height: Int64, _ rowBytes: Int64, _ channels: Int32, _ rotation: Int32,
  _ timestamp: Int64, _ regions: UnsafePointer<Float>?, _ regionCount: Int64,
  _ result: UnsafeMutablePointer<UnsafeMutableRawPointer?>, _ error: ErrorOut
) -> Int32 {
  guarded(error) {
    result.pointee = nil
    let task = Unmanaged<TaskHandle>.fromOpaque(handle).takeUnretainedValue()
    let image = try makeImage(pixels, byteCount, width, height, rowBytes, channels, rotation)
    let faceRegions = regions.map { pointer in
      (0..<Int(max(regionCount, 0))).map { i in
        let r = pointer + 5 * i
        return FaceRegion(
          boundingBox: CGRect(x: Double(r[0]), y: Double(r[1]), width: Double(r[2]), height: Double(r[3])),
          rotationDegrees: Double(r[4]))
      }
    }
    if let table = try task.run(mode: mode, image: image, timestamp: Int(timestamp), regions: faceRegions) {
      result.pointee = Unmanaged.passRetained(table).toOpaque()
    }
  }
}

/// Waits for the task's live-stream frames in hand and releases it.
@_cdecl("visage_task_close")
public func visageTaskClose(_ handle: UnsafeMutableRawPointer) {
  let task = Unmanaged<TaskHandle>.fromOpaque(handle)
  task.takeUnretainedValue().close()
  task.release()
}

/// Rows in a result's field, or -1 when the field is not in the result (its output is off).
@_cdecl("visage_result_rows")
public func visageResultRows(_ result: UnsafeMutableRawPointer, _ field: Int32) -> Int64 {
  let table = Unmanaged<ResultTable>.fromOpaque(result).takeUnretainedValue()
  guard let field = ResultTable.Field(rawValue: field), let rows = table.rows[field] else { return -1 }
  return Int64(rows.count)
}

/// Copies a field's rows, one after another, into `out`, which holds `capacity` floats; returns
/// the floats the field has (nothing is copied when that is more than `capacity` or `out` is
/// null), or -1.
@_cdecl("visage_result_copy")
public func visageResultCopy(
  _ result: UnsafeMutableRawPointer, _ field: Int32, _ out: UnsafeMutablePointer<Float>?, _ capacity: Int64
) -> Int64 {
  let table = Unmanaged<ResultTable>.fromOpaque(result).takeUnretainedValue()
  guard let field = ResultTable.Field(rawValue: field), let rows = table.rows[field] else { return -1 }
  let count = rows.reduce(0) { $0 + $1.count }
  guard let out, count <= capacity else { return Int64(count) }
  var offset = 0
  for row in rows where !row.isEmpty {
    row.withUnsafeBufferPointer { (out + offset).update(from: $0.baseAddress!, count: $0.count) }
    offset += row.count
  }
  return Int64(count)
}

/// The blendshapes' category names, one per line; freed with `visage_free`.
@_cdecl("visage_result_names")
public func visageResultNames(_ result: UnsafeMutableRawPointer) -> UnsafeMutablePointer<CChar>? {
  strdup(Unmanaged<ResultTable>.fromOpaque(result).takeUnretainedValue().categoryNames.joined(separator: "\n"))
}

/// The timestamp a result is for (0 in image mode).
@_cdecl("visage_result_timestamp")
public func visageResultTimestamp(_ result: UnsafeMutableRawPointer) -> Int64 {
  Int64(Unmanaged<ResultTable>.fromOpaque(result).takeUnretainedValue().timestamp)
}

@_cdecl("visage_result_free")
public func visageResultFree(_ result: UnsafeMutableRawPointer) {
  Unmanaged<ResultTable>.fromOpaque(result).release()
}

/// Decodes a PNG or JPEG file into RGB rows as stored (the Exif orientation is not applied, as
/// MediaPipe's `Image.create_from_file` does not); `*pixels` is freed with `visage_free`.
@_cdecl("visage_image_decode")
public func visageImageDecode(
  _ path: UnsafePointer<CChar>, _ pixels: UnsafeMutablePointer<UnsafeMutableRawPointer?>,
  _ width: UnsafeMutablePointer<Int64>, _ height: UnsafeMutablePointer<Int64>, _ error: ErrorOut
) -> Int32 {
  guarded(error) {
    let path = String(cString: path)
    try MissingFile.check(path)
    let image = try MPImage(contentsOfFile: path, orientation: .up)
    pixels.pointee = copyOut(image.pixels)
    width.pointee = Int64(image.width)
    height.pointee = Int64(image.height)
  }
}

/// Visage: a face's aligned crop (`MPImage.alignedFaceCrop`), `size` × `size` RGB pixels into
/// `*out` (freed with `visage_free`), from 478 landmarks as x, y, z floats.
@_cdecl("visage_face_crop")
public func visageFaceCrop(
  _ pixels: UnsafeRawPointer?, _ byteCount: Int64, _ width: Int64, _ height: Int64, _ rowBytes: Int64,
  _ channels: Int32, _ landmarks: UnsafePointer<Float>, _ landmarkCount: Int64, _ size: Int64, _ margin: Double,
  _ out: UnsafeMutablePointer<UnsafeMutableRawPointer?>, _ error: ErrorOut
) -> Int32 {
  guarded(error) {
    let image = try makeImage(pixels, byteCount, width, height, rowBytes, channels, 0)
    let points = (0..<Int(max(landmarkCount, 0))).map {
      NormalizedLandmark(x: landmarks[3 * $0], y: landmarks[3 * $0 + 1], z: landmarks[3 * $0 + 2])
    }
    let crop = try image.alignedFaceCrop(landmarks: points, options: FaceCropOptions(size: Int(size), margin: margin))
    out.pointee = copyOut(crop.pixels)
  }
}

/// An image from a caller's buffer (copied once, into the image's RGB rows).
private func makeImage(
  _ pixels: UnsafeRawPointer?, _ byteCount: Int64, _ width: Int64, _ height: Int64, _ rowBytes: Int64,
  _ channels: Int32, _ rotation: Int32
) throws -> MPImage {
  let format: MPImage.PixelFormat
  switch channels {
  case 1: format = .gray
  case 3: format = .rgb
  case 4: format = .rgba
  default: throw CallError("images must have 1, 3 or 4 channels, got \(channels)")
  }
  guard let pixels, byteCount >= 0 else { throw CallError("no pixels") }
  guard rotation % 90 == 0 else { throw CallError("Expected rotation to be a multiple of 90°.") }
  // MediaPipe's rotation_degrees r turns the model's input by -r degrees, as iOS's
  // orientations do: 90 is `.right` (iOS's -270), 270 is `.left` (-90).
  let orientations: [MPImage.Orientation] = [.up, .right, .down, .left]
  return try MPImage(
    width: Int(clamping: width), height: Int(clamping: height), bytesPerRow: Int(clamping: rowBytes),
    format: format, buffer: UnsafeRawBufferPointer(start: pixels, count: Int(byteCount)),
    orientation: orientations[Int(((rotation % 360) + 360) % 360 / 90)])
}

/// A malloc'd copy of `bytes`, which C frees.
private func copyOut(_ bytes: [UInt8]) -> UnsafeMutableRawPointer {
  let pointer = malloc(max(bytes.count, 1))!
  bytes.withUnsafeBytes { pointer.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
  return pointer
}
