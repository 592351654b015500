import ArgumentParser

/// `--spec FILE.ksy` and `--ksy-path DIR`, listed in every command's help.
/// `SpecArguments` takes them off the command line before parsing (the
/// codecs they add name options and fill help texts), so these options
/// only document them.
struct SpecOption: ParsableArguments {
  @Option(
    name: .customLong("spec"),
    help: ArgumentHelp(
      "Add the codec a Kaitai Struct spec (.ksy) describes, for this run (repeatable; one named as a built-in replaces it).",
      valueName: "file"))
  var files: [String] = []

  @Option(
    name: [.customLong("ksy-path"), .customShort("I")],
    help: ArgumentHelp(
      "Where a spec's absolute imports are looked for, as ksc -I (repeatable; then KSPATH).",
      valueName: "dir"))
  var searchPaths: [String] = []
}
