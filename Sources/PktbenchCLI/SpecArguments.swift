import PacketDecode
import PacketKit
import SpecCodecs

/// `--spec FILE` (repeatable, on any command): loads each spec file and
/// adds its codec to the run's (one named as a codec of the program's
/// replaces it), before the command line is parsed (the codecs are read
/// while parsing: help texts name them). Returns the run and the arguments
/// without them. A bad spec file is one line naming the file, its line and
/// the key, and exit status 64.
enum SpecArguments {
  static func register(_ arguments: [String], codecs: CodecSet) throws(CommandFailure) -> (
    run: CommandRun, arguments: [String]
  ) {
    var rest: [String] = []
    var added: [CodecCalls] = []
    var loaded: [String] = []
    var index = arguments.startIndex
    while index < arguments.endIndex {
      let argument = arguments[index]
      index += 1
      if argument == "--" {
        rest += arguments[(index - 1)...]
        break
      }
      var path: String?
      if argument.hasPrefix("--spec=") {
        path = String(argument.dropFirst("--spec=".count))
      } else if argument == "--spec" {
        guard index < arguments.endIndex else { throw CommandFailure("--spec needs a file", status: 64) }
        path = arguments[index]
        index += 1
      }
      guard let path else {
        rest.append(argument)
        continue
      }
      do {
        added.append(.bound(SpecProgram(try SpecLoader.load(path: path)).codec()))
        loaded.append(path)
      } catch {
        throw CommandFailure(error.description, status: 64)
      }
    }
    return (CommandRun(codecs: added.isEmpty ? codecs : codecs.adding(added), specFiles: loaded), rest)
  }
}
