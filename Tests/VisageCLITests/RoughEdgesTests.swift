import Foundation
import Testing
import VisageTestSupport

/// Issue 47's defects of the command line, each as a new user hit it: a folder given as a file
/// of lines, bad `VISAGE_*` variables, negative numbers, and errors naming the library's option
/// names rather than the flags typed.
@Suite(.timeLimit(.minutes(minutesAllowed(2)))) struct RoughEdgesTests {
  static let photo = "Tests/Fixtures/images/astronaut.png"

  /// A folder as the jsonl file, as standard input, or as `--paths-from` is refused (status 1),
  /// where it used to read as empty and pass.
  @Test func aFolderIsNotAFileOfLines() throws {
    let folder = FileManager.default.temporaryDirectory.path
    for arguments in [
      ["detect", "--input-format", "jsonl", folder], ["detect", "--paths-from", folder],
    ] {
      let run = try CLI.run(arguments)
      #expect(run.status == 1 && run.stderr.contains("is a folder"), "\(arguments): \(run.status) \(run.stderr)")
    }
    let piped = try CLI.shell("$VISAGE detect --input-format jsonl - < \(folder)")
    #expect(piped.status == 1 && piped.stderr.contains("standard input is a folder"), "\(piped.stderr)")
  }

  /// The `VISAGE_MAX_ISA` levels this architecture has, as the message lists them. (Joined with
  /// `+` below: an interpolation in `@Test(arguments:)` crashes Swift 6.0's type checker.)
  #if arch(arm64)
    static let levelNames = "baseline or neonfma"
  #else
    static let levelNames = "baseline, avx2 or avx512"
  #endif

  /// A bad tuning variable is a usage error with its name and the values allowed, never a
  /// stop with a backtrace (SIGILL, status 132).
  @Test(arguments: [
    ("VISAGE_TILE_ROWS=3", "VISAGE_TILE_ROWS is \"3\"; it must be 8, 6, 4 or 2"),
    ("VISAGE_MAX_ISA=avx9", "VISAGE_MAX_ISA is \"avx9\"; it must be " + levelNames),
    ("VISAGE_SEARCH_PROGRESS_AFTER=soon", "VISAGE_SEARCH_PROGRESS_AFTER is \"soon\""),
    ("VISAGE_WEIGHTS=/nonexistent", "VISAGE_WEIGHTS is \"/nonexistent\", which is not a folder"),
  ])
  func badEnvironmentVariablesAreUsageErrors(setting: String, message: String) throws {
    let run = try CLI.shell("\(setting) $VISAGE detect \(Self.photo)")
    #expect(run.status == 2, "\(setting): \(run.status)")
    #expect(run.stderr.contains(message) && !run.stderr.contains("Backtrace"), "\(run.stderr)")
  }

  /// A negative number is read as the option's value and refused as out of range, where it
  /// was taken for a flag ("Missing value for '--threads <threads>'").
  @Test(arguments: [
    (["detect", "--threads", "-1", photo], "--threads"),
    (["detect", "--fps", "-5", "--running-mode", "video", photo], "--fps"),
    (["landmark", "--num-faces", "-2", photo], "--num-faces"),
    (["detect", "--min-detection-confidence", "-0.5", photo], "--min-detection-confidence"),
    (["compare", "--atol", "-1", "a", "b"], "--atol"),
    (["bench", "--iterations", "-1"], "--iterations"),
  ])
  func negativeNumbersAreOutOfRange(arguments: [String], flag: String) throws {
    let run = try CLI.run(arguments)
    #expect(run.status == 2, "\(arguments): \(run.status)")
    #expect(run.stderr.contains(flag) && !run.stderr.contains("Missing value"), "\(run.stderr)")
  }

  /// Errors name the flag typed, not the library's option.
  @Test(arguments: [
    (["analyze", "--max-faces", "0", photo], "--max-faces", "maximumFaceCount"),
    (["landmark", "--num-faces", "0", photo], "--num-faces", "numFaces"),
    (["detect", "--threads", "0", photo], "--threads", "threadCount"),
    (["landmark", "--camera-fov", "200", photo], "--camera-fov", "cameraVerticalFieldOfView"),
  ])
  func errorsNameTheFlags(arguments: [String], flag: String, libraryName: String) throws {
    let run = try CLI.run(arguments)
    #expect(run.status == 2 && run.stderr.contains(flag) && !run.stderr.contains(libraryName), "\(run.stderr)")
  }
}

/// Annotation paths: a folder with one input, names for sources that name no file, and a
/// file named for another format.
@Suite(.timeLimit(.minutes(minutesAllowed(2)))) struct AnnotationPathTests {
  @Test func aFolderTakesTheAnnotationOfOneInput() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("visage-annotate-\(getpid())").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    for path in [folder, folder + "/"] {
      let run = try CLI.run(["detect", "--annotate", path, RoughEdgesTests.photo])
      #expect(run.status == 0, "\(path): \(run.stderr)")
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["0000-astronaut.png"])
  }

  @Test func aJPEGNameIsRefused() throws {
    let run = try CLI.run(["detect", "--annotate", "/tmp/out.jpg", RoughEdgesTests.photo])
    #expect(run.status == 2 && run.stderr.contains("--annotate writes PNG"), "\(run.stderr)")
  }
}

/// Smaller rough edges: a bench image that cannot be read fails before any timing, and a
/// bare .tflite given where a .task bundle belongs says so.
@Suite(.timeLimit(.minutes(minutesAllowed(2)))) struct EarlyAndClearFailureTests {
  @Test func benchRefusesAMissingImageBeforeTiming() throws {
    let run = try CLI.run(["bench", "--image", "/nonexistent.png", "--iterations", "1", "--warmup", "0"])
    #expect(run.status == 1 && run.stdout.isEmpty, "\(run.status): \(run.stdout)")
  }
}

/// A record's base64 is read strictly: base64url's `-` (which used to be skipped, decoding a
/// JPEG into wrong pixels with exit status 0) is refused with its offset.
@Suite(.timeLimit(.minutes(minutesAllowed(2)))) struct StrictRecordTests {
  @Test func aCharacterOutsideTheAlphabetIsNamed() throws {
    let bytes = try Data(contentsOf: URL(fileURLWithPath: Fixtures.repositoryRoot + "/" + RoughEdgesTests.photo))
    var text = Array(bytes.base64EncodedString())
    let at = text.firstIndex(of: "+") ?? 100
    text[at] = "-"
    let record = #"{"source": "a", "data": "\#(String(text))"}"# + "\n"
    let run = try CLI.run(["detect", "--input-format", "jsonl", "-", "--output", "json"], stdin: Data(record.utf8))
    #expect(run.status == 1, "\(run.stdout)")
    #expect(run.stdout.contains("'-' at offset \(at)") && run.stdout.contains("base64url"), "\(run.stdout)")
  }
}

/// An annotation that cannot be written costs the input neither its result line nor the rest
/// of the batch: the line is printed, the failure named on stderr, and the exit status is 1.
@Suite(.timeLimit(.minutes(minutesAllowed(2)))) struct AnnotationFailureTests {
  @Test func aFailedAnnotationKeepsTheResult() throws {
    let run = try CLI.run([
      "detect", "--annotate", "/proc/visage-cannot-write-here.png", "--output", "json", RoughEdgesTests.photo,
    ])
    #expect(run.status == 1, "\(run.status)")
    #expect(run.stdout.contains(#""detections": [{"#) && !run.stdout.contains(#""error""#), "\(run.stdout)")
    #expect(run.stderr.contains("cannot write the annotated image"), "\(run.stderr)")
  }
}

/// `--output text` shows a file name's control characters instead of passing an escape
/// sequence to the terminal.
@Suite(.timeLimit(.minutes(minutesAllowed(2)))) struct TextOutputTests {
  @Test func escapeSequencesInNamesAreShownNotObeyed() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("visage-escape-\(getpid())").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let name = folder + "/red\u{1B}[31m.png"
    try FileManager.default.copyItem(atPath: Fixtures.repositoryRoot + "/" + RoughEdgesTests.photo, toPath: name)
    let run = try CLI.run(["detect", "--output", "text", name])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(!run.stdout.contains("\u{1B}") && run.stdout.contains("red\\u{1B}[31m.png"), "\(run.stdout)")
  }

  /// Only the name is shown so: the summary's own line breaks stay line breaks (they were
  /// written as `\u{A}`, putting every face on the first line).
  @Test func theSummaryKeepsItsLines() throws {
    let run = try CLI.run(["detect", "--output", "text", RoughEdgesTests.photo])
    #expect(run.stdout.contains(": 1 face\n  face 1: score ") && !run.stdout.contains("\\u{A}"), "\(run.stdout)")
  }
}

/// A folder named like a stream is said to be a folder, not a corrupt stream.
@Suite(.timeLimit(.minutes(minutesAllowed(2)))) struct StreamFolderTests {
  @Test func aFolderNamedY4MIsAFolder() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("visage-\(getpid()).y4m").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let run = try CLI.run(["detect", "--output", "json", folder])
    #expect(run.status == 1 && run.stdout.contains("is a folder, not a YUV4MPEG2 stream"), "\(run.stdout)")
  }
}

/// `run --output-dir` somewhere no folder can be made says so in words.
@Suite(.timeLimit(.minutes(minutesAllowed(2)))) struct RunOutputFolderTests {
  @Test func anOutputFolderThatCannotBeMadeIsNamed() throws {
    let run = try CLI.run([
      "run", "Weights/face_detection_full_range.tflite", "--input",
      "Tests/Fixtures/runtime/face_detection_full_range/random.input.npy", "--output-dir", "/proc/visage-x",
    ])
    #expect(run.status == 1, "\(run.status): \(run.stderr)")
    #expect(
      run.stderr.contains("cannot make the output folder '/proc/visage-x' (--output-dir)")
        && !run.stderr.contains("NSCocoaErrorDomain"), "\(run.stderr)")
  }

  /// Errors about files name the file and say why in the system's words: a folder under a
  /// regular file, a model that is not one, a bundle with no entry named, a Fortran-order
  /// array (each used to leave out the file, or say "NSCocoaErrorDomain error 512").
  @Test func fileErrorsNameTheFile() throws {
    let run = try CLI.shell(
      """
      root="$PWD"; d=$(mktemp -d) && cd "$d" || exit 9
      model="$root/Weights/face_detection_full_range.tflite"; input="$root/Tests/Fixtures/runtime/face_detection_full_range/random.input.npy"
      touch file
      "$VISAGE" run "$model" --input "$input" --output-dir file/x 2>&1
      "$VISAGE" run "$model" --input "$input" --dump-tensors file/x 2>&1
      "$VISAGE" inspect "$root/Tests/Fixtures/images/astronaut.png" 2>&1
      "$VISAGE" run "$root/Weights/face_landmarker.task" --input "$input" 2>&1
      { printf '\\x93NUMPY\\x01\\x00\\x76\\x00'
        printf "{'descr': '<f4', 'fortran_order': True, 'shape': (1, 192, 192, 3), }%56s\\n" ''
        head -c 442368 /dev/zero; } > f.npy
      "$VISAGE" run "$model" --input f.npy 2>&1
      "$VISAGE" run "$model" --input "$input" --input "$input" 2>&1 | head -1
      cd / && rm -r "$d"
      """)
    let lines = run.stdout.split(separator: "\n").map(String.init)
    try #require(lines.count == 6, "\(run.stdout) \(run.stderr)")
    #expect(lines[0] == "Error: cannot make the output folder 'file/x' (--output-dir): Not a directory")
    #expect(lines[1] == "Error: cannot make the dump folder 'file/x': Not a directory")
    #expect(
      lines[2].hasPrefix("Error: malformed model at '/") && lines[2].contains("astronaut.png': no TFL3"), "\(lines[2])")
    #expect(
      lines[3].contains("face_landmarker.task' is a .task bundle of several models: name one as /"), "\(lines[3])")
    #expect(lines[4] == "Error: f.npy: invalid input: .npy data in Fortran order is not supported", "\(lines[4])")
    #expect(lines[5] == "Error: the model has 1 input (input); got more", "\(lines[5])")
  }
}

/// Usage errors found after parsing show the subcommand's usage line, not the root's
/// `Usage: visage <subcommand>`, and `run --input NAME=FILE` names an input the model lacks.
@Suite(.timeLimit(.minutes(minutesAllowed(2)))) struct UsageAfterParsingTests {
  @Test(arguments: [
    (["detect"], "Usage: visage detect "),
    (["landmark", "a.png", "b.y4m"], "Usage: visage landmark "),
    (["detect", "--annotate", "out.jpg", "a.png"], "Usage: visage detect "),
    (["detect", "--annotate", "", "a.png"], "Error: --annotate needs a .png file or a folder, not an empty path"),
  ])
  func theSubcommandsUsage(arguments: [String], usage: String) throws {
    let run = try CLI.run(arguments)
    #expect(run.status == 2 && run.stderr.contains(usage), "\(run.stderr)")
    #expect(!run.stderr.contains("<subcommand>"), "\(run.stderr)")
  }

  @Test func anUnknownInputNameIsNamed() throws {
    let run = try CLI.run(["run", "Weights/face_detection_full_range.tflite", "--input", "wrongname=pts.npy"])
    #expect(run.status == 2, "\(run.status)")
    #expect(
      run.stderr.contains("the model has no input named 'wrongname'; its inputs are 'input'")
        && run.stderr.contains("Usage: visage run ") && !run.stderr.contains("cannot read file"), "\(run.stderr)")
  }
}

/// Lines too long to be a path or a record are failed inputs, skipped without being held or
/// echoed (a 300 MB path line took 41 s and 2.1 GB, and was printed four times).
@Suite(.timeLimit(.minutes(minutesAllowed(2)))) struct LongLineTests {
  @Test func aPathLineOverPATHMAXIsNotAPath() throws {
    let photo = RoughEdgesTests.photo
    let list = [photo, String(repeating: "a", count: 4097), String(repeating: "b", count: 4096), photo]
    let run = try CLI.run(
      ["detect", "--output", "json", "--paths-from", "-"], stdin: Data(list.joined(separator: "\n").utf8))
    let lines = run.stdout.split(separator: "\n")
    try #require(run.status == 1 && lines.count == 4, "\(run.stdout)")
    #expect(lines[0].contains("detections") && lines[3].contains("detections"))
    #expect(
      lines[1].hasPrefix(#"{"source": "\#(String(repeating: "a", count: 64))…", "error": "a line of 4097 bytes; "#),
      "\(lines[1])")
    #expect(
      !run.stdout.contains(String(repeating: "a", count: 65)) && !run.stderr.contains(String(repeating: "a", count: 65))
    )
    // 4096 bytes are a path (one that names no file).
    #expect(lines[2].contains(String(repeating: "b", count: 4096)) && !lines[2].contains("PATH_MAX"))
  }

  @Test func aRecordOver64MiBIsRefused() throws {
    let bytes = try Data(contentsOf: URL(fileURLWithPath: Fixtures.repositoryRoot + "/" + RoughEdgesTests.photo))
    let good = #"{"data": "\#(bytes.base64EncodedString())"}"#
    let huge = #"{"data": ""# + String(repeating: "A", count: (64 << 20) - 11) + "\"}"
    #expect(huge.utf8.count == (64 << 20) + 1)
    let run = try CLI.run(
      ["detect", "--output", "json", "--input-format", "jsonl", "-"],
      stdin: Data([good, huge, good].joined(separator: "\n").utf8))
    let lines = run.stdout.split(separator: "\n")
    try #require(run.status == 1 && lines.count == 3, "\(run.stdout)")
    #expect(lines[0].contains("detections") && lines[2].contains("detections"))
    #expect(
      lines[1]
        == #"{"source": "stdin#1", "error": "the record is 67108865 bytes long; a record line has at most 64 MiB"}"#)
  }

  /// `--annotate x.png` with a path list or record file of one input writes x.png, as one
  /// image argument does; with two, a folder x.png (it used to be a folder always). A
  /// stream's frames are named after it (they were all `NNNN-frame.png`).
  @Test func oneListedInputAnnotatesAFile() throws {
    let run = try CLI.shell(
      """
      photo="$PWD/\(RoughEdgesTests.photo)"; d=$(mktemp -d) && cd "$d" || exit 9
      echo "$photo" > one.txt && printf '%s\\n\\n%s\\n' "$photo" "$photo" > two.txt
      printf '\\n{"data": "%s"}\\n' "$(base64 -w0 "$photo")" > one.jsonl
      "$VISAGE" detect --paths-from one.txt --annotate a.png > /dev/null && [ -f a.png ] && echo a file
      "$VISAGE" detect --paths-from - --annotate b.png < one.txt > /dev/null && [ -f b.png ] && echo b file
      "$VISAGE" detect --input-format jsonl one.jsonl --annotate c.png > /dev/null && [ -f c.png ] && echo c file
      "$VISAGE" detect --paths-from two.txt --annotate d.png > /dev/null && ls d.png | tr '\\n' ' '; echo
      printf 'YUV4MPEG2 W2 H2 F30:1 C420jpeg\\nFRAME\\n\\x80\\x80\\x80\\x80\\x80\\x80' > clip.y4m
      "$VISAGE" detect --annotate e/ clip.y4m > /dev/null && ls e
      cd / && rm -r "$d"
      """)
    #expect(
      run.stdout == "a file\nb file\nc file\n0000-astronaut.png 0001-astronaut.png \n0000-clip.png\n",
      "\(run.stdout) \(run.stderr)")
  }

  /// An image or a stream given as a record file is refused once, before any output, where
  /// each of its line breaks made an error line (about 2,400 for a 512×512 PNG).
  @Test func anImageIsNotARecordFile() throws {
    let run = try CLI.run(["detect", "--input-format", "jsonl", RoughEdgesTests.photo])
    #expect(run.status == 1 && run.stdout.isEmpty, "\(run.stdout.prefix(300))")
    #expect(
      run.stderr
        == "Error: '\(RoughEdgesTests.photo)' is a PNG image, not JSON Lines records; give it without --input-format jsonl\n"
    )
    let stream = try CLI.shell("printf 'YUV4MPEG2 W2 H2\\n' | $VISAGE detect --input-format jsonl -")
    #expect(stream.status == 1 && stream.stderr.contains("'stdin' is a YUV4MPEG2 stream"), "\(stream.stderr)")
  }
}

/// `landmark --output text` shows what the flags asked for, as `analyze`'s text does: it
/// showed the landmarks' extent and blendshapes only.
@Suite(.timeLimit(.minutes(minutesAllowed(2)))) struct LandmarkTextTests {
  @Test func theTextShowsWhatWasAskedFor() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("visage-text-\(getpid())").path
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let run = try CLI.run([
      "landmark", "--head-pose", "--iris-distance", "--scores", "--tracking", "--crops", folder, "--output", "text",
      RoughEdgesTests.photo,
    ])
    #expect(run.status == 0, "\(run.stderr)")
    let face = try #require(run.stdout.split(separator: "\n").last.map(String.init))
    for part in [
      "  face 1: landmarks x ", ", tracking ID 1, presence 1.00, detection 0.9", ", angles X -", ", eye distance left ",
      " mm right ", ", crop \(folder)/0000-astronaut-face1.png",
    ] {
      #expect(face.contains(part), "\(part) not in \(face)")
    }
  }
}
