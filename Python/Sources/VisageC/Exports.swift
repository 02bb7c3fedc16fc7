// The C interface that `visage/_native.py` loads with ctypes, as Sources/CVisage/include/visage.h
// declares it (which says what each call does); `HeaderAgreement` holds each function here to
// the header's prototype.
import CVisage
import Foundation
import Visage
import VisageHosting
import VisageImageIO
import VisageReports

public typealias ErrorOut = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?

@_cdecl("visage_free")
public func visageFree(_ pointer: UnsafeMutableRawPointer?) { free(pointer) }

/// Creates a task from its options as JSON (`TaskConfiguration`).
@_cdecl("visage_task_create")
public func visageTaskCreate(
  _ json: UnsafePointer<CChar>, _ callback: LiveStreamCallback?, _ context: UnsafeMutableRawPointer?,
  _ handle: UnsafeMutablePointer<UnsafeMutableRawPointer?>, _ error: ErrorOut
) -> visage_status {
  guarded(error) {
    let configuration = try TaskConfiguration.decode(String(cString: json))
    let task = try TaskHandle(configuration: configuration, callback: callback, context: context)
    handle.pointee = Unmanaged.passRetained(task).toOpaque()
  }
}

/// Runs a task on an image; `regions` holds `regionCount` face regions of five floats.
@_cdecl("visage_task_run")
public func visageTaskRun(
  _ handle: UnsafeMutableRawPointer, _ mode: visage_running_mode, _ image: UnsafePointer<visage_image>,
  _ timestamp: Int64, _ regions: UnsafePointer<Float>?, _ regionCount: Int64,
  _ result: UnsafeMutablePointer<UnsafeMutableRawPointer?>, _ error: ErrorOut
) -> visage_status {
  guarded(error) {
    result.pointee = nil
    let task = Unmanaged<TaskHandle>.fromOpaque(handle).takeUnretainedValue()
    let source = try PixelSource(image.pointee)
    let faceRegions = regions.map { pointer in
      (0..<Int(max(regionCount, 0))).map { i in
        let r = pointer + 5 * i
        return FaceRegion(
          boundingBox: CGRect(x: Double(r[0]), y: Double(r[1]), width: Double(r[2]), height: Double(r[3])),
          rotationDegrees: Double(r[4]))
      }
    }
    let table = try task.run(mode: mode, source: source, timestamp: Int(timestamp), regions: faceRegions)
    if let table {
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

/// A result's field: its rows (-1 when the field is not in the result, its output being off),
/// with `*width` floats each at `*values`, which stay valid until `visage_result_free`.
@_cdecl("visage_result_field")
public func visageResultField(
  _ result: UnsafeMutableRawPointer, _ field: visage_field, _ values: UnsafeMutablePointer<UnsafeRawPointer?>,
  _ width: UnsafeMutablePointer<Int64>
) -> Int64 {
  let table = Unmanaged<ResultTable>.fromOpaque(result).takeUnretainedValue()
  guard let block = table.blocks[field] else { return -1 }
  values.pointee = UnsafeRawPointer(block.values.baseAddress)
  width.pointee = Int64(block.width)
  return Int64(block.rows)
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

/// The engine's time for a result in nanoseconds: the task's own call, without the image copy
/// or this table (`ResultTable.engineTime`).
@_cdecl("visage_result_engine_nanoseconds")
public func visageResultEngineNanoseconds(_ result: UnsafeMutableRawPointer) -> Int64 {
  let time = Unmanaged<ResultTable>.fromOpaque(result).takeUnretainedValue().engineTime.components
  return time.seconds * 1_000_000_000 + time.attoseconds / 1_000_000_000
}

@_cdecl("visage_result_free")
public func visageResultFree(_ result: UnsafeMutableRawPointer) {
  Unmanaged<ResultTable>.fromOpaque(result).release()
}

/// The version of this C interface, visage.h's `VISAGE_ABI_VERSION`: raised whenever a
/// function's arguments or meaning, or a result field's number, change. Python's
/// `_native.ABI_VERSION` must equal it (checked at import). 2: `visage_image_decode` takes
/// `uprightJPEG`. 3: it decodes as MediaPipe's `create_from_file` (stb_image, any channel
/// count) and says the channels. 4: a task's JSON names its options by the option table's
/// Python names, the bundled models apart (`TaskConfiguration`); `visage_option_table`. 5: the
/// header; an image is a `visage_image`, modes, formats, decoders and fields its enums.
@_cdecl("visage_abi_version")
public func visageABIVersion() -> Int32 { VISAGE_ABI_VERSION }

/// The option table of a task (`detect`, `landmark`, `analyze`) as a JSON array of objects
/// (`name`, `python`: null when Python does not take it, `kind`, `default`, `alternative`: a
/// value other than the default), freed with `visage_free`; null for another task.
@_cdecl("visage_option_table")
public func visageOptionTable(_ task: UnsafePointer<CChar>) -> UnsafeMutablePointer<CChar>? {
  guard let kind = FaceTaskKind(rawValue: String(cString: task)) else { return nil }
  let rows = TaskOptions.table(for: kind).map { option -> JSONValue in
    let kind: String
    switch option.kind {
    case .flag: kind = "flag"
    case .fraction, .degrees: kind = "number"
    case .count: kind = "count"
    case .choice: kind = "choice"
    }
    return .object([
      ("name", .string(option.name)), ("python", option.pythonName.map(JSONValue.string) ?? .null),
      ("kind", .string(kind)), ("default", option.defaultValue.map(JSONValue.string) ?? .null),
      ("alternative", .string(option.alternativeValue)),
    ])
  }
  return strdup(JSONValue.array(rows).description)
}

/// 1 when `visage_image_decode` decodes with stb_image as MediaPipe does, 0 when this build has
/// no stb_image and it falls back to libpng and libjpeg-turbo (JPEG pixels up to 3 levels off).
@_cdecl("visage_image_decodes_as_mediapipe")
public func visageImageDecodesAsMediaPipe() -> Int32 { STBImage.isAvailable ? 1 : 0 }

/// Decodes an image file into `*image` (`STBImage(mediaPipeFile:)` for MediaPipe's decoder):
/// a missing file is `VISAGE_FILE_NOT_FOUND`; one that cannot be decoded `VISAGE_ENGINE_FAILED`
/// (MediaPipe's RuntimeError); gray and alpha `VISAGE_INVALID_ARGUMENT` (its ValueError).
@_cdecl("visage_image_decode")
public func visageImageDecode(
  _ path: UnsafePointer<CChar>, _ decoder: visage_decoder, _ image: UnsafeMutablePointer<visage_image>,
  _ error: ErrorOut
) -> visage_status {
  guarded(error) {
    let path = String(cString: path)
    try MissingFile.check(path, folderIsMissing: false)
    let decoded: STBImage
    do {
      decoded =
        try STBImage.isAvailable && decoder == VISAGE_DECODER_MEDIAPIPE
        ? STBImage(mediaPipeFile: path) : standardDecode(path)
    } catch {
      throw DecodeFailure(description: "Failed to load image from file: \(error)")
    }
    guard [1, 3, 4].contains(decoded.channels) else {
      throw CallError(
        "Expected image with 1 (grayscale), 3 (RGB) or 4 (RGBA) channels, found \(decoded.channels) channels.")
    }
    image.pointee = visage_image(
      pixels: copyOut(decoded.pixels), byte_count: Int64(decoded.pixels.count), width: Int64(decoded.width),
      height: Int64(decoded.height), row_bytes: Int64(decoded.width * decoded.channels),
      format: visage_image_format(rawValue: Int32(decoded.channels)), rotation_degrees: 0)
  }
}

/// A file that could not be decoded: Python's RuntimeError, as MediaPipe raises.
private struct DecodeFailure: Error, CustomStringConvertible { let description: String }

/// `visage_image_decode` with libpng or libjpeg-turbo: RGB, a JPEG turned upright by its Exif tag.
private func standardDecode(_ path: String) throws -> STBImage {
  let decoded = try DecodedImage(contentsOfFile: path, orientation: .up)
  var image = decoded.image
  if decoded.format == .jpeg, let tag = decoded.exifOrientation {
    image.orientation = tag
    image = image.removingMirroring().applyingOrientation()
  }
  return try STBImage(width: image.width, height: image.height, channels: 3, pixels: image.pixels)
}

/// Visage: a face's aligned crop (`MPImage.alignedFaceCrop`).
@_cdecl("visage_face_crop")
public func visageFaceCrop(
  _ image: UnsafePointer<visage_image>, _ landmarks: UnsafePointer<Float>, _ landmarkCount: Int64, _ size: Int64,
  _ margin: Double, _ out: UnsafeMutablePointer<UnsafeMutableRawPointer?>, _ error: ErrorOut
) -> visage_status {
  guarded(error) {
    let image = try PixelSource(image.pointee).image()
    let points = (0..<Int(max(landmarkCount, 0))).map {
      NormalizedLandmark(x: landmarks[3 * $0], y: landmarks[3 * $0 + 1], z: landmarks[3 * $0 + 2])
    }
    let crop = try image.alignedFaceCrop(landmarks: points, options: FaceCropOptions(size: Int(size), margin: margin))
    out.pointee = copyOut(crop.pixels)
  }
}

/// One of MediaPipe's face landmark connection lists (`tesselation`, `contours`, `lips`,
/// `leftEye`, `leftEyebrow`, `leftIris`, `rightEye`, `rightEyebrow`, `rightIris`, `faceOval`,
/// `nose`) as start, end pairs into `out`, which holds `capacity` numbers; returns the numbers
/// the list has (nothing is copied when that is more than `capacity`), or -1 for another name.
@_cdecl("visage_face_connections")
public func visageFaceConnections(
  _ name: UnsafePointer<CChar>, _ out: UnsafeMutablePointer<Int32>?, _ capacity: Int64
) -> Int64 {
  let lists: [String: [Connection]] = [
    "tesselation": FaceLandmarksConnections.tesselation, "contours": FaceLandmarksConnections.contours,
    "lips": FaceLandmarksConnections.lips, "leftEye": FaceLandmarksConnections.leftEye,
    "leftEyebrow": FaceLandmarksConnections.leftEyebrow, "leftIris": FaceLandmarksConnections.leftIris,
    "rightEye": FaceLandmarksConnections.rightEye, "rightEyebrow": FaceLandmarksConnections.rightEyebrow,
    "rightIris": FaceLandmarksConnections.rightIris, "faceOval": FaceLandmarksConnections.faceOval,
    "nose": FaceLandmarksConnections.nose,
  ]
  guard let list = lists[String(cString: name)] else { return -1 }
  guard let out, 2 * list.count <= capacity else { return Int64(2 * list.count) }
  for (i, connection) in list.enumerated() {
    out[2 * i] = Int32(connection.start)
    out[2 * i + 1] = Int32(connection.end)
  }
  return Int64(2 * list.count)
}

/// A malloc'd copy of `bytes`, which C frees.
private func copyOut(_ bytes: [UInt8]) -> UnsafeMutableRawPointer {
  let pointer = malloc(max(bytes.count, 1))!
  bytes.withUnsafeBytes { pointer.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
  return pointer
}

/// Each function above has the type of the header's prototype of its name: a change to one
/// without the other does not compile. Never called.
private enum HeaderAgreement {
  static func same<Function>(_ header: Function, _ here: Function) {}

  static func check() {
    same(visage_abi_version, visageABIVersion)
    same(visage_free, visageFree)
    same(visage_task_create, visageTaskCreate)
    same(visage_task_run, visageTaskRun)
    same(visage_task_close, visageTaskClose)
    same(visage_result_field, visageResultField)
    same(visage_result_names, visageResultNames)
    same(visage_result_timestamp, visageResultTimestamp)
    same(visage_result_engine_nanoseconds, visageResultEngineNanoseconds)
    same(visage_result_free, visageResultFree)
    same(visage_image_decode, visageImageDecode)
    same(visage_image_decodes_as_mediapipe, visageImageDecodesAsMediaPipe)
    same(visage_face_crop, visageFaceCrop)
    same(visage_face_connections, visageFaceConnections)
    same(visage_option_table, visageOptionTable)
    same(visage_command_line, visageCommandLine)
  }
}
