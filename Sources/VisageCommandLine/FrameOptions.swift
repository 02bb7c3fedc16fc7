import ArgumentParser
import Foundation
import VisageImageIO

/// The options `detect`, `landmark` and `analyze` share: where the frames come from, the
/// frame rate, threads, and how results are written.
struct FrameOptions: ParsableArguments {
  @Argument(
    help:
      "PNG or JPEG images, or the frames of a video in order (--running-mode). A single .y4m file is a stream of frames; - reads standard input: one PNG or JPEG image, else a YUV4MPEG2 stream."
  )
  var images: [String] = []

  @Option(help: "Read image paths one per line from this file, or - for standard input.")
  var pathsFrom: String?

  @Option(
    help: ArgumentHelp(
      "files (image paths, or one YUV4MPEG2 stream) or jsonl (encoded images as JSON Lines from one file or -, each {\"source\": name, \"data\": base64 PNG or JPEG}).",
      valueName: "format"))
  var inputFormat: InputFormat = .files

  @Option(
    parsing: .unconditional,
    help:
      "Frame rate of a video or stream: timestamps round(i·1000/fps) ms, at most 1000 (default: the stream's own rate for YUV4MPEG2, else 30); in the mode that takes a live stream, frames are also fed in real time at this rate."
  )
  var fps: Double?

  @Option(
    parsing: .unconditional,
    help:
      "Threads, 1...64: in image mode that many copies of the task take the inputs in turn. One task uses them all instead (sharing its larger layers, or a search's tiles and looks at every scale, while later inputs decode on other threads, except for a live stream) for a single input, a search at every scale, analyze --tracking, and in every running mode but image. Results and their order are the same for any count."
  )
  var threads = 1

  @Option(help: "json or text (text on a terminal).")
  var output: OutputFormat?

  @Option(help: "Write a PNG with the results drawn (a folder when several inputs).")
  var annotate: String?

  @Flag(help: .shared("ignore-exif", of: .detect))
  var ignoreExif = false

  @Option(
    help: ArgumentHelp(
      "standard (libpng and libjpeg-turbo, Pillow's pixels) or mediapipe-python (stb_image, as MediaPipe's Python Image.create_from_file reads files: its JPEG pixels, and a PNG's eXIf not read).",
      valueName: "decoder"))
  var decoder: ImageDecoder = .standard

  /// How many inputs decode ahead of the one being processed when one task takes every input
  /// (video mode, and image mode without `sideBySide`): as many as `--threads`, when above 1.
  var decodeAhead: Int { threads > 1 ? threads : 0 }

  /// How many one-thread copies of the task take the `frames` in turn (`processBatch`):
  /// `--threads`, no more than there are inputs when that is known, in image mode unless the
  /// task searches at every scale (`allScales`), whose search shares each photo's tiles and
  /// looks over the threads instead; 0 (one task with every thread) below two copies.
  func sideBySide(_ mode: CLIRunningMode, allScales: Bool, frames: InputFrames) -> Int {
    let copies = min(threads, frames.count ?? threads)
    return mode == .image && !allScales && copies > 1 ? copies : 0
  }

  /// `--threads` is checked by each command with the rest of its task's options
  /// (`BaseOptions.validate()`); the frame rate is the command line's own.
  func validate() throws {
    if decoder == .mediaPipePython && !STBImage.isAvailable {
      throw ValidationError(
        "--decoder mediapipe-python: this build has no stb_image (run Tools/stb-header, then build)")
    }
    if let fps, let problem = FrameRate.problem(fps) { throw ValidationError("--fps: \(problem)") }
    if annotate == "" { throw ValidationError("--annotate needs a .png file or a folder, not an empty path") }
    // The annotation is a PNG: a file named for another format would hold the wrong thing.
    if let annotate, !InputFrames.namesFolder(annotate) {
      let suffix = URL(fileURLWithPath: annotate).pathExtension.lowercased()
      if ["jpg", "jpeg", "webp", "gif", "bmp", "tif", "tiff", "heic", "avif"].contains(suffix) {
        throw ValidationError("--annotate writes PNG: give a .png file or a folder, not '\(annotate)'")
      }
    }
  }

  /// The inputs, and the reporter that writes one line per input. `timestamped`: whether
  /// the frames get timestamps (video and live-stream mode), and so need a usable rate.
  func open(timestamped: Bool) throws -> (InputFrames, Reporter) {
    // `--annotate x.png` with a list or record file: one input writes x.png, more a folder.
    let annotatesFile = annotate.map { !InputFrames.namesFolder($0) } ?? false
    let frames = try InputFrames(
      arguments: images, pathsFrom: pathsFrom, fps: fps, timestamped: timestamped, format: inputFormat,
      honorsExif: !ignoreExif, countsToTwo: annotatesFile, decoder: decoder)
    return (frames, Reporter(format: output ?? .automatic, total: frames.count))
  }
}

extension ImageDecoder: ExpressibleByArgument {}
