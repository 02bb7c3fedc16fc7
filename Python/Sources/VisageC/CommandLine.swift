// The `visage` command line inside the shared object, for the wheel's `visage` command
// (`visage/_command.py`): one copy of the engine and of Swift's runtime serves Python and the
// command line, where a second executable would double the wheel (docs/install.md).
import VisageCommandLine

/// Runs the command line on `argv` (the first element the command's name, as `visage`
/// shows it in usage). Returns 0 on success; any other status ends the process with that
/// status, as the `visage` executable does.
@_cdecl("visage_command_line")
public func visageCommandLine(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
  Visage.main(argc: argc, argv: argv)
}
