import Foundation
import Testing
import VisageTestSupport

/// An image on standard input or on a pipe given as a path (issue 47, item 6): `cat a.png |
/// visage detect -` used to be read as YUV4MPEG2, and `<(cat a.png)` was refused as not a
/// regular file.
@Suite(.timeLimit(.minutes(minutesAllowed(2)))) struct PipedImageTests {
  static let png = "Tests/Fixtures/images/astronaut.png"
  static let jpeg = "Tests/Fixtures/landmarker/frames/pan/000.jpg"

  /// The result line for the file `path`, with its source put as `source`.
  static func fileLine(_ path: String, source: String) throws -> String {
    let run = try CLI.run(["detect", "--output", "json", path])
    #expect(run.status == 0, "\(run.stderr)")
    return run.stdout.replacingOccurrences(of: #""source": "\#(path)""#, with: #""source": "\#(source)""#)
  }

  /// PNG and JPEG bytes on standard input give the file's own result, named `stdin`.
  @Test(arguments: [png, jpeg]) func anImageOnStandardInput(_ path: String) throws {
    let bytes = try Data(contentsOf: URL(fileURLWithPath: Fixtures.repositoryRoot + "/" + path))
    let run = try CLI.run(["detect", "--output", "json", "-"], stdin: bytes)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.hasPrefix(#"{"source": "stdin", "width": "#), "\(run.stdout)")
    let expected = try Self.fileLine(path, source: "stdin")
    #expect(run.stdout == expected)
  }

  /// Standard input that starts with neither byte is still read as YUV4MPEG2.
  @Test func otherBytesOnStandardInputAreAStream() throws {
    let run = try CLI.run(["detect", "--output", "json", "-"], stdin: Data("GIF89a".utf8))
    #expect(run.status == 1 && run.stdout.contains("does not start with 'YUV4MPEG2 '"), "\(run.stdout)")
  }

  /// A process substitution is read whole as one image; one of something else fails at once.
  @Test func aProcessSubstitution() throws {
    let run = try CLI.shell("\"$VISAGE\" detect --output json <(cat \(Self.png))")
    #expect(run.status == 0, "\(run.stderr)")
    let line = try #require(try run.jsonLines().first)
    let source = try #require(line["source"] as? String)
    #expect(source.hasPrefix("/dev/fd/"))
    let expected = try Self.fileLine(Self.png, source: source)
    #expect(run.stdout == expected)
    let other = try CLI.shell("timeout 60 \"$VISAGE\" detect --output json <(yes)")
    #expect(other.status == 1 && other.stdout.contains("not a PNG or JPEG"), "\(other.stdout)")
  }
}
