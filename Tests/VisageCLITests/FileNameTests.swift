import Foundation
import Testing
import VisageTestSupport

/// File names that are not UTF-8 (issue 47, item 3): Linux allows them, and they used to be
/// opened by their U+FFFD decoding ("No such file or directory").
@Suite(.timeLimit(.minutes(minutesAllowed(2)))) struct FileNameTests {
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

  /// Models, `run`'s inputs and `inspect`'s file are read by their bytes, in a folder whose
  /// name is not UTF-8 or by a name that is not, a bundle's entry kept; JSON names them as
  /// `source` does, and an error names the file as the user did, not by the path that
  /// reached it.
  @Test func modelsAndRunInputs() throws {
    let run = try CLI.shell(
      """
      root="$PWD"; d=$(mktemp -d) && cd "$d" || exit 9
      mkdir $'caf\\xe9' && cp "$root/Weights/face_landmarker.task" $'caf\\xe9/m.task'
      cp "$root/Weights/face_landmarker.task" $'m\\xe9.task'
      cp "$root/Tests/Fixtures/images/astronaut.png" a.png
      cp "$root/Tests/Fixtures/runtime/face_detector/face.input.npy" $'in\\xe9.npy'
      "$VISAGE" landmark --output json --model $'caf\\xe9/m.task' a.png | head -c 18; echo
      "$VISAGE" detect --output json --model $'m\\xe9.task' a.png | head -c 18; echo
      "$VISAGE" analyze --output json --model $'m\\xe9.task' a.png | head -c 18; echo
      "$VISAGE" run $'m\\xe9.task:face_detector.tflite' --input $'input=in\\xe9.npy' --output-dir $'o\\xe9/p'
      head -c 6 $'o\\xe9/p/out1.npy' | tail -c 5; echo
      "$VISAGE" inspect --output json $'m\\xe9.task' | head -c 25; echo
      "$VISAGE" detect --output json --model $'caf\\xe9/none.tflite' a.png 2>&1
      "$VISAGE" detect --output json --model $'no\\xe9.task' a.png 2>&1
      cd / && rm -r "$d"
      """)
    let lines = run.stdout.split(separator: "\n").map(String.init)
    try #require(lines.count >= 8, "\(run.stdout) \(run.stderr)")
    for line in lines[0..<3] { #expect(line == #"{"source": "a.png""#, "\(run.stdout) \(run.stderr)") }
    #expect(lines[4] == "NUMPY", "\(lines[4])")
    #expect(lines[3].hasPrefix(#"{"model": "m\udce9.task:face_detector.tflite", "outputs": [{"name": "#), "\(lines[3])")
    #expect(lines[3].contains(#""file": "o\udce9/p/out0.npy"}"#), "\(lines[3])")
    #expect(lines[5] == #"{"bundle": "m\udce9.task""#, "\(lines[5])")
    #expect(lines[6].hasPrefix("Error: ") && lines[6].contains("'caf\u{FFFD}/none.tflite'"), "\(lines[6])")
    #expect(lines[7].hasPrefix("Error: ") && lines[7].contains("'no\u{FFFD}.task'"), "\(lines[7])")
    #expect(!run.stdout.contains("/proc/") && !run.stdout.contains("visage-names"), "\(run.stdout)")
  }

  /// Annotations and crops are written to the file or folder the bytes name: a new file, one
  /// written over, a folder made for several inputs, and a new file in a new folder.
  @Test func annotationsAndCrops() throws {
    let run = try CLI.shell(
      """
      root="$PWD"; d=$(mktemp -d) && cd "$d" || exit 9
      cp "$root/Tests/Fixtures/images/astronaut.png" a.png && echo old > $'old\\xe9.png'
      "$VISAGE" detect --output json --annotate $'new\\xe9.png' a.png > /dev/null || echo failed 1
      "$VISAGE" detect --output json --annotate $'old\\xe9.png' a.png > /dev/null || echo failed 2
      "$VISAGE" detect --output json --annotate $'many\\xe9' a.png a.png > /dev/null || echo failed 3
      "$VISAGE" landmark --output json --annotate $'sub\\xe9/x.png' --crops $'crops\\xe9' a.png || echo failed 4
      for f in $'new\\xe9.png' $'old\\xe9.png' $'many\\xe9/0000-a.png' $'many\\xe9/0001-a.png' $'sub\\xe9/x.png' \\
        $'crops\\xe9/0000-a-face1.png'; do head -c 4 "$f" | od -An -c | tr -d ' \\n'; echo " $f"; done
      ls -A | LC_ALL=C sort | od -An -c | tr -d ' \\n'; echo
      cd / && rm -r "$d"
      """)
    #expect(run.status == 0 && !run.stdout.contains("failed"), "\(run.stdout) \(run.stderr)")
    #expect(run.stdout.contains(#""faceCrops": ["crops\udce9/0000-a-face1.png"]"#), "\(run.stdout)")
    let lines = run.stdout.split(separator: "\n").filter { !$0.hasPrefix("{") }
    try #require(lines.count == 7, "\(run.stdout) \(run.stderr)")
    for line in lines[0..<6] { #expect(line.hasPrefix("211PNG "), "\(line)") }
    // Nothing else was left: no partial file, no folder with U+FFFD in its name.
    #expect(lines[6] == #"a.png\ncrops351\nmany351\nnew351.png\nold351.png\nsub351\n"#, "\(lines[6])")
  }

  /// Arguments are told apart by their place, not by their text: `a\xe9.png` and
  /// `a\xe8.png` both read `a�.png`, and the annotation of one must not overwrite the other.
  /// `--option=value` is found too.
  @Test func namesThatReadTheSameAreToldApart() throws {
    let run = try CLI.shell(
      """
      root="$PWD"; d=$(mktemp -d) && cd "$d" || exit 9
      cp "$root/Tests/Fixtures/images/astronaut.png" $'a\\xe9.png' && before=$(cksum < $'a\\xe9.png')
      "$VISAGE" detect --output json $'a\\xe9.png' --annotate $'a\\xe8.png' > /dev/null || echo failed 1
      [ "$(cksum < $'a\\xe9.png')" = "$before" ] || echo input overwritten
      rm $'a\\xe8.png' && echo not an image > $'b\\xe8.png'
      "$VISAGE" detect --output json --annotate $'b\\xe9.png' $'a\\xe9.png' > /dev/null || echo failed 2
      [ "$(cksum < $'b\\xe8.png')" = "$(echo not an image | cksum)" ] || echo other overwritten
      "$VISAGE" detect --output json $'a\\xe9.png' --annotate=$'c\\xe9.png' > /dev/null || echo failed 3
      for f in $'b\\xe9.png' $'c\\xe9.png'; do head -c 4 "$f" | od -An -c | tr -d ' \\n'; echo; done
      ls -A | LC_ALL=C sort | od -An -c | tr -d ' \\n'; echo
      cd / && rm -r "$d"
      """)
    #expect(
      run.status == 0 && !run.stdout.contains("failed") && !run.stdout.contains("overwritten"),
      "\(run.stdout) \(run.stderr)")
    #expect(
      run.stdout.split(separator: "\n") == ["211PNG", "211PNG", #"a351.png\nb350.png\nb351.png\nc351.png\n"#],
      "\(run.stdout)")
  }

  /// A bundle whose name is not UTF-8 is read by its bytes, needing no temporary folder (it
  /// was once reached through a link in `$TMPDIR`); a name beginning with a combining mark is
  /// written losslessly; nothing is left in `$TMPDIR` on SIGINT; and `run` names a missing
  /// input file as a missing file.
  @Test func bundlesNeedNoTemporaryFilesAndLeaveNothing() throws {
    let run = try CLI.shell(
      """
      root="$PWD"; d=$(mktemp -d) && cd "$d" || exit 9
      cp "$root/Weights/face_landmarker.task" $'m\\xe9.task' && cp "$root/Tests/Fixtures/images/astronaut.png" a.png
      cp "$root/Tests/Fixtures/runtime/face_detector/face.input.npy" in.npy
      TMPDIR=/nonexistent "$VISAGE" detect --output json --model $'m\\xe9.task' a.png 2>&1; echo "exit $?"
      "$VISAGE" run $'m\\xe9.task:face_detector.tflite' --input in.npy --output-dir $'o\\xe9/\\xcc\\x81p' | head -c 300; echo
      # The test runner's children start with SIGINT blocked; perl (Debian's perl-base is
      # essential) unblocks it, as a shell's child has it.
      unblocked() { perl -MPOSIX -e 'sigprocmask(SIG_UNBLOCK, POSIX::SigSet->new(SIGINT)); exec @ARGV' "$@"; }
      mkdir t && TMPDIR="$d/t" unblocked timeout --preserve-status -s INT 0.3 "$VISAGE" landmark --detector-range all --any-rotation --model $'m\\xe9.task' \\
        "$root/Tests/Fixtures/crowd/crowd_00.jpg" > /dev/null; echo "exit $? left $(ls -A t | wc -l)"
      "$VISAGE" run $'m\\xe9.task:face_detector.tflite' --input input=missing.npy 2>&1; echo "exit $?"
      cd / && rm -r "$d"
      """)
    let lines = run.stdout.split(separator: "\n").map(String.init)
    try #require(lines.count == 6, "\(run.stdout) \(run.stderr)")
    #expect(lines[0].hasPrefix(#"{"source": "a.png", "width": 512"#) && lines[1] == "exit 0", "\(lines[0])")
    #expect(
      lines[2].contains("\"file\": \"o\\udce9/\u{301}p/out0.npy\"") && !lines[2].contains("/proc/"), "\(lines[2])")
    #expect(lines[3] == "exit 130 left 0", "\(lines[3])")
    #expect(lines[4].hasPrefix("Error: cannot read file 'missing.npy'") && lines[5] == "exit 1", "\(lines[4])")
  }

  /// Names with a newline, and names that look like flags (after `--`), in a folder whose name
  /// is not UTF-8: JSON keeps them, and the annotations made in the folder are named from them.
  @Test func namesWithNewlinesAndFlagLikeNames() throws {
    let run = try CLI.shell(
      """
      photo="$PWD/Tests/Fixtures/images/astronaut.png"; d=$(mktemp -d) && cd "$d" || exit 9
      cp -- "$photo" $'-a\\xe9.png' && cp "$photo" $'new\\nline\\xe9.png' && mkdir $'dir\\xe9'
      "$VISAGE" detect --output json --annotate $'dir\\xe9' -- $'-a\\xe9.png' $'new\\nline\\xe9.png'
      ls -A $'dir\\xe9' | LC_ALL=C od -An -c | tr -d ' \\n'; echo
      cd / && rm -r "$d"
      """)
    let lines = run.stdout.split(separator: "\n")
    try #require(lines.count == 3, "\(run.stdout) \(run.stderr)")
    #expect(lines[0].hasPrefix(#"{"source": "-a\udce9.png", "width": 512"#), "\(lines[0])")
    #expect(lines[1].hasPrefix(#"{"source": "new\nline\udce9.png", "width": 512"#), "\(lines[1])")
    #expect(lines[2] == #"0000--a357277275.png\n0001-new\nline357277275.png\n"#, "\(lines[2])")
  }
}
