import Foundation
import Testing
import VisageTestSupport

/// File names that are not UTF-8 (issue 47, item 3): Linux allows them, and they used to be
/// opened by their U+FFFD decoding ("No such file or directory").
@Suite(.timeLimit(.minutes(2))) struct FileNameTests {
  /// The file named by the bytes is opened, its `source` keeps them as `\udcXX`, and a name
  /// holding U+FFFD itself is told apart from one that decodes to it.
  @Test func namesThatAreNotUTF8AreOpenedByTheirBytes() throws {
    let run = try CLI.shell(
      """
      photo="$PWD/Tests/Fixtures/images/astronaut.png"; d=$(mktemp -d) && cd "$d" || exit 9
      cp "$photo" $'lat\\xe9.png' && cp "$photo" 'lat\u{FFFD}.png' && cp "$photo" $'lat\\xe8\\xff.png'
      "$VISAGE" detect --output json $'lat\\xe9.png' 'lat\u{FFFD}.png' $'lat\\xe8\\xff.png' $'no\\xe9.png'
      status=$?; rm -r "$d"; exit $status
      """)
    #expect(run.status == 1, "\(run.stderr)")
    let lines = run.stdout.split(separator: "\n").map(String.init)
    try #require(lines.count == 4, "\(run.stdout)")
    for (line, source) in zip(lines, [#"lat\udce9.png"#, "lat\u{FFFD}.png", #"lat\udce8\udcff.png"#]) {
      #expect(line.hasPrefix(#"{"source": "\#(source)", "width": 512"#) && line.contains("detections"), "\(line)")
    }
    #expect(lines[3].hasPrefix(#"{"source": "no\udce9.png", "error": "#), "\(lines[3])")
  }

  /// The search profile's line names the input the same way.
  @Test func theSearchProfileLine() throws {
    let run = try CLI.shell(
      """
      photo="$PWD/Tests/Fixtures/images/astronaut.png"; d=$(mktemp -d) && cd "$d" || exit 9
      cp "$photo" $'lat\\xe9.png' && "$VISAGE" detect --any-rotation --profile-search --output json $'lat\\xe9.png'
      status=$?; rm -r "$d"; exit $status
      """)
    #expect(run.status == 0 && run.stderr.hasPrefix(#"{"source": "lat\udce9.png", "searchProfile": "#), "\(run.stderr)")
  }

  /// The same for a `--paths-from` line.
  @Test func aPathListLineThatIsNotUTF8() throws {
    let run = try CLI.shell(
      """
      photo="$PWD/Tests/Fixtures/images/astronaut.png"; d=$(mktemp -d) && cd "$d" || exit 9
      cp "$photo" $'lat\\xe9.png' && printf ' lat\\xe9.png \\n' | "$VISAGE" detect --output json --paths-from -
      status=$?; rm -r "$d"; exit $status
      """)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.hasPrefix(#"{"source": "lat\udce9.png", "width": 512"#), "\(run.stdout)")
  }
}
