import ArgumentParser
import Foundation
import Visage
import VisageImageIO
import VisageTFLite

/// One input of a batch or one frame of a stream: its position, the name it is reported
/// under, and the decoded image or the reason there is none.
struct Frame {
  let index: Int
  let source: String
  /// The picture upright, as a viewer shows it: the tasks run on it, so every position they
  /// report, and the annotation, is in the upright picture.
  let image: Result<MPImage, any Error>
  /// What was applied to the file's stored pixels to make `image`: its Exif orientation,
  /// unless `--ignore-exif` (then `.up`).
  var orientation: MPImage.Orientation = .up
  /// The file's Exif orientation, applied or not; `nil` when it has none (or it cannot be
  /// read), and for the frames of a stream.
  var exifOrientation: MPImage.Orientation? = nil
  /// The bytes of a file name that is not UTF-8, which `source` shows with U+FFFD.
  var rawSource: [UInt8]? = nil
  /// `source` as JSON, losslessly (`BytePath.json`).
  var sourceJSON: JSON { rawSource.map { BytePath(bytes: $0).json } ?? .string(source) }

  init(index: Int, source: String, image: Result<MPImage, any Error>) {
    (self.index, self.source, self.image) = (index, source, image)
  }

  /// How the text output names the frame: its source, control characters shown
  /// (`Reporter.visible`), and, when the file has an Exif orientation other than 1, whether it
  /// was turned by it.
  var label: String {
    let source = Reporter.visible(source)
    guard let exif = exifOrientation, exif != .up else { return source }
    return orientation == .up
      ? "\(source) (Exif orientation \(exif.exifValue) ignored)"
      : "\(source) (turned upright: Exif orientation \(exif.exifValue))"
  }

  /// An encoded file's frame: `decoded` turned upright.
  init(index: Int, source: String, decoded: Result<DecodedImage, any Error>) {
    self.init(index: index, source: source, image: decoded.map { $0.image.applyingOrientation() })
    if case .success(let file) = decoded {
      (orientation, exifOrientation) = (file.storedOrientation, file.exifOrientation)
    }
  }
}

/// The inputs of `detect` and `landmark`, in order: image files named as arguments or read
/// one per line (`--paths-from FILE`, `-` for standard input), the frames of one YUV4MPEG2
/// stream (a single `.y4m` argument, or `-` for standard input), one PNG or JPEG image on
/// standard input (`-`, told from a stream by its first byte), or encoded images in JSON
/// Lines (`--input-format jsonl`, see `ImageRecords` in VisageImageIO). Frames are decoded one at a time, so a
/// long stream or path list never sits in memory.
final class InputFrames {
  private enum Source {
    /// Paths, in `BytePath` string form.
    case paths([String])
    /// The next path of a list, trimmed, blank lines skipped.
    case lines(() -> ListedPath?)
    /// A stream, named by the path given (with its bytes when they are not UTF-8).
    case stream(Result<Y4MReader, any Error>, name: String, raw: [UInt8]?)
    case records(LineReader, name: String, raw: [UInt8]?)
    /// One PNG or JPEG file's bytes, read whole from standard input.
    case standardInputImage(Result<[UInt8], any Error>)
  }

  private let source: Source
  private var nextIndex = 0
  /// The next line of a record file, counting blank lines.
  private var nextLine = 0
  /// Frames per second for video and live-stream timestamps.
  let fps: Double
  /// How many inputs there are, when that is known before reading them.
  let count: Int?
  /// The orientation encoded files are decoded with: `nil`, their Exif tag's, unless
  /// `--ignore-exif`, then `.up`.
  private let imposedOrientation: MPImage.Orientation?
  /// What decodes PNG and JPEG inputs (`--decoder`).
  private let decoder: ImageDecoder

  /// Sorts out the command line's inputs. `fps` defaults to the stream's own frame rate
  /// for YUV4MPEG2 input and to 30 otherwise; the stream's rate is checked only when the
  /// frames are `timestamped`, since still images do not need one.
  /// `countsToTwo`: a list or record file is read ahead until its second input (or its end),
  /// so that `count` says whether there is only one (`--annotate` naming a file needs to
  /// know); otherwise `count` is unknown for them.
  init(
    arguments: [String], pathsFrom: String?, fps: Double?, timestamped: Bool, format: InputFormat = .files,
    honorsExif: Bool = true, countsToTwo: Bool = false, decoder: ImageDecoder = .standard
  ) throws {
    imposedOrientation = honorsExif ? nil : .up
    self.decoder = decoder
    if format == .jsonl {
      guard pathsFrom == nil, arguments.count == 1 else {
        throw ValidationError("--input-format jsonl reads one file of records, or - for standard input")
      }
      let (name, rawName) = Self.names(arguments[0])
      let reader = try LineReader(path: arguments[0], maximumLength: Self.maximumRecordLength)
      // Read ahead: an image or a stream given as records would be thousands of bad lines;
      // and, when asked, up to the second record.
      var ahead: [LineReader.Line] = []
      var records = 0
      while let line = reader.next() {
        ahead.append(line)
        if ahead.count == 1, let kind = Self.encodedKind(line.bytes) {
          throw SetupError("'\(name)' is \(kind), not JSON Lines records; give it without --input-format jsonl")
        }
        if line.tooLong != nil || !line.bytes.allSatisfy({ [0x20, 0x09, 0x0D].contains($0) }) { records += 1 }
        if !countsToTwo || records == 2 { break }
      }
      reader.unread(ahead)
      source = .records(reader, name: name, raw: rawName)
      count = countsToTwo && records < 2 ? records : nil
    } else if let pathsFrom {
      guard arguments.isEmpty else {
        throw ValidationError("give image paths either as arguments or with --paths-from, not both")
      }
      let paths = try Self.pathReader(pathsFrom)
      // An empty list is no input, a usage error as when no path is given at all; so the
      // first path is read ahead, before anything is reported.
      guard let first = paths() else { throw ValidationError("no input: the path list '\(pathsFrom)' holds no path") }
      var ahead = [first] + (countsToTwo ? [paths()].compactMap { $0 } : [])
      count = countsToTwo && ahead.count == 1 ? 1 : nil
      source = .lines { ahead.isEmpty ? paths() : ahead.removeFirst() }
    } else if arguments.count == 1, arguments[0] == "-" || arguments[0].lowercased().hasSuffix(".y4m") {
      // A stream that cannot be opened, or whose own frame rate cannot time it, is a failed
      // input (reported, exit status 1), not a usage error.
      // Standard input holds one PNG or JPEG image or a stream, told by its first byte.
      let contents = Result {
        // A folder opens and reads as empty, which the reader would call a corrupt stream.
        if arguments[0] != "-" && Self.namesFolder(arguments[0]) {
          throw CLIError("'\(arguments[0])' is a folder, not a YUV4MPEG2 stream")
        }
        return try arguments[0] == "-"
          ? Y4MReader.standardInputContents()
          : .frames(Y4MReader(contentsOfFile: arguments[0]))
      }
      var reader: Result<Y4MReader, any Error>
      switch contents {
      case .success(.frames(let frames)): reader = .success(frames)
      case .failure(let error) where !(error is ImageIOError): reader = .failure(error)
      case .success(.image(let bytes)):
        (source, count, self.fps) = (.standardInputImage(.success(bytes)), 1, fps ?? 30)
        return
      case .failure(let error):  // an image that could not be read whole
        (source, count, self.fps) = (.standardInputImage(.failure(error)), 1, fps ?? 30)
        return
      }
      var streamRate = fps == nil ? (try? reader.get())?.frameRate : nil
      if let rate = streamRate, let problem = FrameRate.problem(rate) {
        if timestamped { reader = .failure(CLIError("the stream's frame rate: \(problem); give --fps to override it")) }
        streamRate = nil
      }
      let (name, rawName) = Self.names(arguments[0])
      source = .stream(reader, name: name, raw: rawName)
      count = nil
      self.fps = fps ?? streamRate ?? 30
      return
    } else {
      guard !arguments.isEmpty else {
        throw ValidationError(
          "no input: give image paths, a .y4m file, - for standard input, or --paths-from")
      }
      if arguments.contains(where: { $0 == "-" || $0.lowercased().hasSuffix(".y4m") }) {
        throw ValidationError("a YUV4MPEG2 stream (.y4m) or standard input (-) must be the only input")
      }
      if let fps, let problem = FrameRate.problem(fps, frames: arguments.count) {
        throw ValidationError("--fps: \(problem)")
      }
      source = .paths(arguments)
      count = arguments.count
    }
    self.fps = fps ?? 30
  }

  /// Whether the inputs are the frames of a YUV4MPEG2 stream.
  var isStream: Bool { if case .stream = source { true } else { false } }

  /// The timestamp of frame `index`: round(index · 1000 / fps) ms.
  ///
  /// - Throws: `CLIError` past the range the tasks accept (only a long stream at a
  ///   very low rate gets there; see `FrameRate`).
  func timestamp(_ index: Int) throws(CLIError) -> Int { try FrameRate.timestamp(index, fps: fps) }

  /// The next input, decoded, or `nil` after the last. A stream that breaks yields one
  /// failed frame and then ends, since nothing after the break can be read.
  func next() -> Frame? { nextJob().map { $0() } }

  /// The next input, to decode: what must be read in order (the next path, record line or
  /// stream frame) is read now; the decoding, which needs nothing of this object, is what the
  /// closure does, so it may run on another thread (`processEach`, `processBatch`).
  func nextJob() -> (@Sendable () -> Frame)? {
    let index = nextIndex
    let orientation = imposedOrientation
    let decoder = decoder
    switch source {
    case .paths(let paths):
      guard index < paths.count else { return nil }
      nextIndex += 1
      let path = paths[index]
      return { Self.fileFrame(index, path: path, orientation: orientation, decoder: decoder) }
    case .lines(let nextPath):
      guard let listed = nextPath() else { return nil }
      nextIndex += 1
      if let length = listed.tooLong {
        let problem = CLIError("a line of \(length) bytes; a path has at most \(Self.maximumPathLength) (PATH_MAX)")
        return { Frame(index: index, source: listed.path + "…", image: .failure(problem)) }
      }
      return { Self.fileFrame(index, path: listed.path, orientation: orientation, decoder: decoder) }
    case .standardInputImage(let bytes):
      guard index == 0 else { return nil }
      nextIndex += 1
      return {
        Frame(
          index: 0, source: "stdin",
          decoded: Result { try DecodedImage(encoded: bytes.get(), orientation: orientation, decoder: decoder) })
      }
    case .records(let reader, let name, let raw):
      while let line = reader.next() {
        // Records are numbered by line, blank lines included, so a message points at its line.
        let lineIndex = nextLine
        nextLine += 1
        let (defaultSource, rawDefault) = ("\(name)#\(lineIndex)", raw.map { $0 + Array("#\(lineIndex)".utf8) })
        if let length = line.tooLong {
          nextIndex += 1
          var frame = Frame(
            index: index, source: defaultSource,
            image: .failure(
              CLIError(
                "the record is \(length) bytes long; a record line has at most \(Self.maximumRecordLength >> 20) MiB")))
          frame.rawSource = rawDefault
          return { [frame] in frame }
        }
        let line = String(decoding: line.bytes, as: UTF8.self)
        if line.allSatisfy(\.isWhitespace) { continue }
        nextIndex += 1
        return {
          let record = ImageRecords.parse(
            line, defaultSource: defaultSource, orientation: orientation, decoder: decoder)
          var frame = Frame(index: index, source: record.source, decoded: record.image)
          // A record with no source of its own is named after a file whose name is not UTF-8.
          if record.source == defaultSource { frame.rawSource = rawDefault }
          return frame
        }
      }
      return nil
    case .stream(let reader, let stream, let raw):
      // Frames of a stream are reported as `clip.y4m#12` (`stdin#12`). Read in order, here.
      let name = "\(stream)#\(index)"
      guard index != Int.max else { return nil }
      var frame: Frame
      do {
        guard let image = try reader.get().nextFrame() else { return nil }
        nextIndex += 1
        frame = Frame(index: index, source: name, image: .success(image))
      } catch {
        nextIndex = Int.max
        frame = Frame(index: index, source: name, image: .failure(error))
      }
      frame.rawSource = raw.map { $0 + Array("#\(index)".utf8) }
      return { [frame] in frame }
    }
  }

  /// The frame of the image file at `path`, a `BytePath` string form.
  private static func fileFrame(
    _ index: Int, path: String, orientation: MPImage.Orientation?, decoder: ImageDecoder
  ) -> Frame {
    let (source, raw) = names(path)
    var frame = Frame(
      index: index, source: source,
      decoded: Result { try DecodedImage(contentsOfFile: path, orientation: orientation, decoder: decoder) })
    frame.rawSource = raw
    return frame
  }

  /// How an input given as `argument` (a `BytePath` string form) is named: as text (`stdin`
  /// for `-`), and by its bytes when they are not UTF-8.
  private static func names(_ argument: String) -> (text: String, raw: [UInt8]?) {
    let path = BytePath(argument)
    return (argument == "-" ? "stdin" : path.description, path.string == path.description ? nil : path.bytes)
  }

  /// Where the annotated copy of input `frame` goes: `path` itself when there is exactly one
  /// input and `path` is not a folder (an existing one, or one written with a trailing `/`),
  /// else a PNG named after the input inside the folder `path`.
  func annotationPath(_ path: String, for frame: Frame, alwaysInFolder: Bool = false) -> String {
    if count == 1 && !alwaysInFolder && !Self.namesFolder(path) { return path }
    // A stream's frames are named after the stream (`0012-clip.png`), an image after its file.
    let named: String = if case .stream(_, let name, _) = source { name } else { frame.source }
    var base = URL(fileURLWithPath: named).deletingPathExtension().lastPathComponent
    // A source such as `/`, `.` or `..` names no file: the input's number alone names it.
    if !isStream && (frame.source.hasSuffix("/") || ["", "/", ".", ".."].contains(base)) {
      base = "input"
    }
    return (path.hasSuffix("/") ? String(path.dropLast()) : path) + "/" + String(format: "%04d-", frame.index) + base
      + ".png"
  }

  /// "a PNG image" or "a YUV4MPEG2 stream" for the first line of a file that is one (a PNG's
  /// signature runs past its first line break, so its first four bytes are what is checked).
  private static func encodedKind(_ firstLine: [UInt8]) -> String? {
    if firstLine.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "a PNG image" }
    if ImageFormat(sniffing: firstLine) == .jpeg { return "a JPEG image" }
    return firstLine.starts(with: Array("YUV4MPEG2 ".utf8)) ? "a YUV4MPEG2 stream" : nil
  }

  /// Whether `path` is meant as a folder: it ends with `/`, or a folder is there.
  static func namesFolder(_ argument: String) -> Bool { argument.hasSuffix("/") || BytePath(argument).isFolder }

  /// The longest line of a path list, in bytes: Linux's PATH_MAX.
  static let maximumPathLength = 4096
  /// The longest record line of `--input-format jsonl`, in bytes: 64 MiB, about 48 MB of image
  /// file in base64, which the record's parsing holds about four times over.
  static let maximumRecordLength = 64 << 20

  /// A path of a list in `BytePath` string form, or the start of a line too long to be a
  /// path, as text, and the line's length.
  typealias ListedPath = (path: String, tooLong: Int?)

  /// Reads paths one per line from standard input (`-`) or from a file, trimmed, skipping
  /// blank lines.
  private static func pathReader(_ path: String) throws -> () -> ListedPath? {
    let lines = try LineReader(path: path, maximumLength: maximumPathLength)
    return {
      while let line = lines.next() {
        guard line.tooLong == nil else { return (String(decoding: line.bytes, as: UTF8.self), line.tooLong) }
        if let text = String(bytes: line.bytes, encoding: .utf8) {
          let path = text.trimmingCharacters(in: .whitespacesAndNewlines)
          if !path.isEmpty { return (path, nil) }
        } else {
          let isSpace = { (byte: UInt8) in byte == 0x20 || (0x09...0x0D).contains(byte) }
          return (
            BytePath(bytes: line.bytes.drop(while: isSpace).reversed().drop(while: isSpace).reversed()).string, nil
          )
        }
      }
      return nil
    }
  }
}

/// One result line per input, failures included; the exit status remembers failures.
final class Reporter {
  let format: OutputFormat
  private(set) var failures = 0
  private let total: Int?
  private var done = 0
  private let showProgress: Bool
  private let isTerminal = isatty(STDERR_FILENO) != 0

  /// `total` is the number of inputs, or `nil` when unknown (a stream or a path list on
  /// standard input), in which case progress is a running count.
  init(format: OutputFormat, total: Int?) {
    self.format = format
    self.total = total
    showProgress = isatty(STDERR_FILENO) != 0 && (total ?? Int.max) > 3
  }

  /// Failures of the current input's side work (its annotation, its crops), reported after
  /// its line.
  private var sideFailures: [any Error] = []

  /// Runs work beside an input's result (writing its annotation or crops): a failure does not
  /// cost the result its line; it is reported on stderr after the line and fails the run.
  func besideResult(_ body: () throws -> Void) {
    do { try body() } catch { sideFailures.append(error) }
  }

  /// Prints a JSON line (json) or the summary text (text), whose lines name the frame by its
  /// `label`.
  func emit(_ json: JSON, text: @autoclosure () -> String) {
    clearProgress()
    print(format == .json ? json.description : text())
    StandardOutput.flush()
    for failure in sideFailures {
      failures += 1
      FileHandle.standardError.write(Data("visage: \(BytePath("\(failure)").description)\n".utf8))
    }
    sideFailures = []
    step()
  }

  /// Reports a failed input on stdout (as a JSON line or text) and on stderr, and goes on.
  func fail(_ frame: Frame, error: any Error) {
    failures += 1
    clearProgress()
    let message = BytePath("\(error)").description
    FileHandle.standardError.write(Data("visage: \(frame.source): \(message)\n".utf8))
    print(
      format == .json
        ? JSON.object([("source", frame.sourceJSON), ("error", .string(message))]).description
        : Self.visible("\(frame.source): error: \(message)"))
    StandardOutput.flush()
    step()
  }

  /// Text for a terminal with its control characters shown, not obeyed: a file name holding
  /// an escape sequence must not recolour or move the cursor (`\u{1B}` is written as text).
  static func visible(_ text: String) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
      let v = scalar.value
      if v < 0x20 || (0x7F...0x9F).contains(v) {
        out += "\\u{" + String(v, radix: 16, uppercase: true) + "}"
      } else {
        out.unicodeScalars.append(scalar)
      }
    }
    return out
  }

  /// Exit status 1 when any input failed.
  func finish() throws {
    clearProgress()
    if failures > 0 { throw ExitCode(1) }
  }

  private func step() {
    done += 1
    guard showProgress else { return }
    guard let total else {
      FileHandle.standardError.write(Data("\r\(done) done".utf8))
      return
    }
    let filled = 30 * done / total
    let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: 30 - filled)
    FileHandle.standardError.write(Data("\r[\(bar)] \(done)/\(total)".utf8))
  }

  /// Clears the progress bar, or `detect`'s search progress line, from a terminal.
  private func clearProgress() {
    if isTerminal { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
  }
}
