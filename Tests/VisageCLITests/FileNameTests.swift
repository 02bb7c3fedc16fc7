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

  /// A stream, a path list and a record file whose names are not UTF-8 are opened too, and
  /// the names made from them (`clip.y4m#0`, `records.jsonl#0`) keep the bytes.
  @Test func streamsListsAndRecordFiles() throws {
    let run = try CLI.shell(
      """
      root="$PWD"; d=$(mktemp -d) && cd "$d" || exit 9
      printf 'YUV4MPEG2 W2 H2 F30:1 C420jpeg\\nFRAME\\n\\x80\\x80\\x80\\x80\\x80\\x80' > $'clip\\xe9.y4m'
      echo "$root/Tests/Fixtures/images/astronaut.png" > $'list\\xe9.txt'
      echo '{"data": "AAAA"}' > $'records\\xe9.jsonl'
      "$VISAGE" detect --output json $'clip\\xe9.y4m'
      "$VISAGE" detect --output json --paths-from $'list\\xe9.txt'
      "$VISAGE" detect --output json --input-format jsonl $'records\\xe9.jsonl'
      rm -r "$d"
      """)
    let lines = run.stdout.split(separator: "\n")
    try #require(lines.count == 3, "\(run.stdout) \(run.stderr)")
    #expect(lines[0].hasPrefix(#"{"source": "clip\udce9.y4m#0", "width": 2"#), "\(lines[0])")
    #expect(lines[1].contains("astronaut.png") && lines[1].contains("detections"), "\(lines[1])")
    #expect(lines[2].hasPrefix(#"{"source": "records\udce9.jsonl#0", "error": "#), "\(lines[2])")
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
