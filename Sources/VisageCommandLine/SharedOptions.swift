import ArgumentParser
import VisageHosting

// The face tasks' options that visage-server shares take their help and defaults from the one
// table, VisageHosting's `TaskOptions`; `TaskOptionTableTests` holds the flags to it.

extension ArgumentHelp {
  /// The help of `task`'s option `name`, from the table.
  static func shared(_ name: String, of task: FaceTaskKind) -> ArgumentHelp {
    ArgumentHelp(TaskOptions.option(name, of: task).help)
  }
}

extension TaskOptions {
  /// The default of `task`'s number option `name`, from the table (canonical, so it parses).
  static func number<Value: LosslessStringConvertible>(_ name: String, of task: FaceTaskKind) -> Value {
    Value(option(name, of: task).defaultValue ?? "")!
  }

  /// The default of `task`'s choice `name`, from the table (one of its choices, so it parses).
  static func choice<Value: RawRepresentable<String>>(_ name: String, of task: FaceTaskKind) -> Value {
    Value(rawValue: option(name, of: task).defaultValue ?? "")!
  }
}
